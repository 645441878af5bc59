package io.windowpane.testkit.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The build's provisioning step: before the first test that needs a server runs, obtains every
 * outside program the suite needs and prints what it will run, or fails the build once, with the
 * one command to run. The testkit's {@code pom.xml} runs it in {@code process-test-classes}
 * (skipped with {@code -DskipTests}); tests started from an IDE provision the same programs
 * lazily through {@link ServerBinary#locate()}.
 *
 * <pre>{@code java io.windowpane.testkit.process.Provision redis-server redis-cli etcd redis-6}</pre>
 */
public final class Provision {

  private static final Map<String, ServerBinary> FROM_DEBIAN = new LinkedHashMap<>();

  static {
    for (ServerBinary b : List.of(TestBinaries.REDIS_SERVER, TestBinaries.REDIS_CLI,
        TestBinaries.ETCD, TestBinaries.CHROMIUM, TestBinaries.CHROMEDRIVER)) {
      FROM_DEBIAN.put(b.name(), b);
    }
  }

  private static final String REDIS_6 = "redis-6";

  private Provision() {}

  /**
   * Provisions the named programs ({@code redis-server}, {@code redis-cli}, {@code etcd},
   * {@code redis-6}); missing Debian ones are installed in one {@code apt-get} run.
   *
   * @throws IllegalArgumentException for an unknown name
   * @throws IllegalStateException if something cannot be obtained; the message says why and how
   */
  public static void main(String[] args) {
    List<ServerBinary> debian = new ArrayList<>();
    boolean redis6 = false;
    for (String arg : args) {
      if (arg.equals(REDIS_6)) {
        redis6 = true;
      } else if (FROM_DEBIAN.containsKey(arg)) {
        debian.add(FROM_DEBIAN.get(arg));
      } else {
        throw new IllegalArgumentException("program: expected one of " + FROM_DEBIAN.keySet()
            + " or " + REDIS_6 + ", got " + arg);
      }
    }
    List<String> missing = new ArrayList<>();
    for (ServerBinary b : debian) {
      if (b.find().isEmpty() && !missing.contains(b.aptPackage())) {
        missing.add(b.aptPackage());
      }
    }
    if (!missing.isEmpty()) {
      DebianPackages.install(missing);
    }
    for (ServerBinary b : debian) {
      Path path = b.locate();
      say(b.name() + " " + version(path) + " at " + path);
    }
    if (redis6) {
      Path path = TestBinaries.REDIS_6.locate();
      say("redis-server " + version(path) + " at " + path + " (from "
          + TestBinaries.REDIS_6.artifact() + ")");
    }
  }

  private static void say(String line) {
    System.out.println("windowpane testkit: " + line);
  }

  private static final Pattern VERSION =
      Pattern.compile("\\d+\\.\\d+\\.\\d+");

  /** The version the program prints for {@code --version}, e.g. {@code 7.0.15}. */
  static String version(Path binary) {
    try {
      Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true)
          .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      Matcher m = VERSION.matcher(out);
      return m.find() ? m.group() : "(version unknown: " + out.strip() + ")";
    } catch (IOException e) {
      return "(version unknown: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(version unknown)";
    }
  }
}
