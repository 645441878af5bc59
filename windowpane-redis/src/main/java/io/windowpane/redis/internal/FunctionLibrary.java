package io.windowpane.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The windowpane function library: its text for {@code FUNCTION LOAD}, the same text without the
 * shebang line for {@code EVAL}, the SHA-1 of that for {@code EVALSHA}, and the version declared
 * in its header. The text is the concatenation of the resources {@code io/windowpane/redis/lua/*.lua}
 * in the order {@code lua/library.txt} lists them (their names sort in that order, so
 * {@code cat lua/*.lua} gives the same text): one file per concern, one library on the server.
 */
public final class FunctionLibrary {

  /** The library name declared in the shebang line. */
  public static final String NAME = "windowpane";

  private static final String DIRECTORY = "/io/windowpane/redis/lua/";
  private static final String RESOURCE = DIRECTORY + "library.txt";
  private static final Pattern VERSION = Pattern.compile("function library, version (\\d+)");

  private static final FunctionLibrary INSTANCE = load();

  private final String functionText;
  private final String evalText;
  private final String evalSha;
  private final int version;

  private FunctionLibrary(String functionText) {
    this.functionText = functionText;
    if (!functionText.startsWith("#!lua name=" + NAME + "\n")) {
      throw new IllegalStateException(DIRECTORY + "01-header.lua must start with '#!lua name=" + NAME + "'");
    }
    this.evalText = functionText.substring(functionText.indexOf('\n') + 1);
    this.evalSha = sha1(evalText);
    Matcher m = VERSION.matcher(functionText);
    if (!m.find()) {
      throw new IllegalStateException(DIRECTORY + "01-header.lua declares no 'function library, version N'");
    }
    this.version = Integer.parseInt(m.group(1));
  }

  /** The library bundled with this engine. */
  public static FunctionLibrary bundled() {
    return INSTANCE;
  }

  private static FunctionLibrary load() {
    StringBuilder text = new StringBuilder(100_000);
    for (String part : parts()) {
      text.append(read(DIRECTORY + part));
    }
    return new FunctionLibrary(text.toString());
  }

  /** The parts of the library, in order, as {@code lua/library.txt} lists them. */
  public static List<String> parts() {
    List<String> parts = new ArrayList<>();
    for (String part : read(RESOURCE).split("\n")) {
      if (!part.isBlank() && !part.startsWith("#")) {
        parts.add(part.strip());
      }
    }
    return parts;
  }

  private static String read(String resource) {
    try (InputStream in = FunctionLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
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
