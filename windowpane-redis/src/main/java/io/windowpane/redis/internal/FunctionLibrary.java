package io.windowpane.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The windowpane function library ({@code windowpane.lua}, a resource): its text for
 * {@code FUNCTION LOAD}, the same text without the shebang line for {@code EVAL}, the SHA-1 of
 * that for {@code EVALSHA}, and the version declared in its header.
 */
public final class FunctionLibrary {

  /** The library name declared in the shebang line. */
  public static final String NAME = "windowpane";

  private static final String RESOURCE = "/io/windowpane/redis/windowpane.lua";
  private static final Pattern VERSION = Pattern.compile("function library, version (\\d+)");

  private static final FunctionLibrary INSTANCE = load();

  private final String functionText;
  private final String evalText;
  private final String evalSha;
  private final int version;

  private FunctionLibrary(String functionText) {
    this.functionText = functionText;
    if (!functionText.startsWith("#!lua name=" + NAME + "\n")) {
      throw new IllegalStateException(RESOURCE + " must start with '#!lua name=" + NAME + "'");
    }
    this.evalText = functionText.substring(functionText.indexOf('\n') + 1);
    this.evalSha = sha1(evalText);
    Matcher m = VERSION.matcher(functionText);
    if (!m.find()) {
      throw new IllegalStateException(RESOURCE + " declares no 'function library, version N'");
    }
    this.version = Integer.parseInt(m.group(1));
  }

  /** The library bundled with this engine. */
  public static FunctionLibrary bundled() {
    return INSTANCE;
  }

  private static FunctionLibrary load() {
    try (InputStream in = FunctionLibrary.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      return new FunctionLibrary(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The text for {@code FUNCTION LOAD}. */
  public String functionText() {
    return functionText;
  }

  /** The text for {@code EVAL}: the shebang line removed; ARGV[1] names the function. */
  public String evalText() {
    return evalText;
  }

  /** The SHA-1 of {@link #evalText()}, for {@code EVALSHA}. */
  public String evalSha() {
    return evalSha;
  }

  /** The version in the header, also returned by {@code FCALL wp_version 0}. */
  public int version() {
    return version;
  }
}
