package io.windowpane.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Installs Debian packages with {@code apt-get} when this process may: as root, or through
 * passwordless {@code sudo}. Thread-safe, and safe across JVMs: installs are serialized by a file
 * lock, so forked test JVMs and the build's provisioning step never run {@code apt-get} at once.
 */
public final class DebianPackages {

  /*
   * Design note. The test command must pass on a fresh machine with only Java and Maven, so a
   * server binary that is missing is obtained rather than reported. Debian's packages are
   * the source for what Maven Central does not ship (redis-server 7, redis-cli, etcd): this class
   * runs `apt-get install -y` for the missing packages, and `apt-get update` first when the
   * package lists are empty (fresh container images ship none) or when an install fails for want
   * of them. It never asks for a password: without root and without `sudo -n`, or without apt-get,
   * it fails at once with the one command a person should run. A failure is remembered for the
   * life of the JVM, so a hundred test classes fail with the same message in microseconds instead
   * of trying apt-get a hundred times; the build's provisioning step (Provision) makes that first
   * failure the build's, before any test runs. apt-get's output goes to a log file whose path and
   * tail are in every failure message; the whole install is bounded by INSTALL_TIMEOUT.
   */

  /** The packages the test suite needs, in the one command that installs them by hand. */
  public static final List<String> SUITE =
      List.of("redis-server", "redis-tools", "etcd-server", "etcd-client", "chromium",
          "chromium-driver");

  static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
  private static final Path APT_GET = Path.of("/usr/bin/apt-get");
  private static final Path LISTS = Path.of("/var/lib/apt/lists");

  private static final Map<Set<String>, String> FAILED = new ConcurrentHashMap<>();

  private DebianPackages() {}

  /** The command a person runs to install {@code packages} by hand. */
  public static String command(List<String> packages) {
    return "sudo apt-get install -y " + String.join(" ", packages);
  }

  /**
   * Installs {@code packages} unless this JVM already failed to; returns once apt-get succeeded.
   *
   * @throws IllegalStateException if this process may not install packages, apt-get is missing or
   *     fails; the message says why and gives the one command that installs the whole suite
   */
  public static void install(List<String> packages) {
    install(packages, APT_GET, DebianPackages::rootPrefix);
  }

  /** {@link #install(List)} with the apt-get path and the privilege check given, for tests. */
  static synchronized void install(List<String> packages, Path aptGet,
      Supplier<Optional<List<String>>> rootPrefix) {
    Set<String> key = new LinkedHashSet<>(packages);
    String failed = FAILED.get(key);
    if (failed != null) {
      throw new IllegalStateException(failed);
    }
    try {
      installNow(packages, aptGet, rootPrefix);
    } catch (IllegalStateException e) {
      FAILED.put(key, e.getMessage());
      throw e;
    }
  }

  private static void installNow(List<String> packages, Path aptGet,
      Supplier<Optional<List<String>>> rootPrefix) {
    if (!Files.isExecutable(aptGet)) {
      throw cannot(packages, "this machine has no " + aptGet + " (not Debian or Ubuntu)");
    }
    Optional<List<String>> asRoot = rootPrefix.get();
    if (asRoot.isEmpty()) {
      throw cannot(packages, "this process is not root and has no passwordless sudo");
    }
    Path log = logFile();
    System.err.println("windowpane testkit: installing " + String.join(" ", packages)
        + " with apt-get (log: " + log + ")");
    try (FileChannel channel = FileChannel.open(lockFile(), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      if (!hasLists() && run(aptGet, asRoot.get(), List.of("update", "-q"), log) != 0) {
        throw cannot(packages, "apt-get update failed; " + tail(log));
      }
      if (run(aptGet, asRoot.get(), installArgs(packages), log) != 0) {
        if (run(aptGet, asRoot.get(), List.of("update", "-q"), log) != 0
            || run(aptGet, asRoot.get(), installArgs(packages), log) != 0) {
          throw cannot(packages, "apt-get install failed; " + tail(log));
        }
      }
    } catch (IOException e) {
      throw cannot(packages, "cannot run apt-get: " + e.getMessage());
    }
    System.err.println("windowpane testkit: installed " + String.join(" ", packages));
  }

  private static List<String> installArgs(List<String> packages) {
    List<String> args = new ArrayList<>(List.of("install", "-y", "-q", "--no-install-recommends"));
    args.addAll(packages);
    return args;
  }

  /** Empty when neither root nor passwordless sudo; else the prefix that runs a command as root. */
  private static Optional<List<String>> rootPrefix() {
    if ("0".equals(output(List.of("id", "-u")).trim())) {
      return Optional.of(List.of());
    }
    try {
      Process sudo = new ProcessBuilder("sudo", "-n", "true").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (sudo.waitFor(10, TimeUnit.SECONDS) && sudo.exitValue() == 0) {
        return Optional.of(List.of("sudo", "-n"));
      }
      sudo.destroyForcibly();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }

  private static int run(Path aptGet, List<String> prefix, List<String> args, Path log)
      throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of("env", "DEBIAN_FRONTEND=noninteractive"));
    command.add(aptGet.toString());
    command.addAll(args);
    Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      if (!process.waitFor(INSTALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return -1;
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static boolean hasLists() {
    try (var files = Files.list(LISTS)) {
      return files.anyMatch(f -> f.getFileName().toString().contains("_Packages"));
    } catch (IOException | UncheckedIOException e) {
      return false;
    }
  }

  private static String output(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      return out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private static Path lockFile() {
    return Path.of(System.getProperty("java.io.tmpdir"), "windowpane-apt.lock");
  }

  private static Path logFile() {
    try {
      return Files.createTempFile("windowpane-apt-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path log) {
    return "last lines of " + log + ":\n" + ServerProcess.tail(log);
  }

  private static IllegalStateException cannot(List<String> packages, String why) {
    return new IllegalStateException("the testkit cannot install " + String.join(" ", packages)
        + ": " + why + ". Install what the tests need with this one command, then run the tests"
        + " again:\n    " + command(SUITE));
  }
}
