package io.windowpane.testkit.etcd;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the {@code etcd} executable: the system property {@value #PROPERTY}, else the environment
 * variable {@value #ENV}, else the first {@code etcd} on {@code PATH}, else {@value #FALLBACK}. An
 * explicit override that is not executable is an error, never silently replaced by another binary.
 */
final class EtcdBinary {

  static final String PROPERTY = "windowpane.etcd";
  static final String ENV = "WINDOWPANE_ETCD";
  static final String FALLBACK = "/usr/bin/etcd";
  static final String INSTALL_HINT =
      "install it with `sudo apt-get install -y etcd-server` (Debian/Ubuntu), or point the"
          + " system property " + PROPERTY + " or the environment variable " + ENV
          + " at the binary";

  private EtcdBinary() {}

  /** The binary for this JVM's property, environment and {@code PATH}. */
  static Path locate() {
    return locate(System.getProperty(PROPERTY), System.getenv(ENV), System.getenv("PATH"),
        Path.of(FALLBACK));
  }

  /**
   * The binary for the given inputs; null or blank inputs count as unset.
   *
   * @throws IllegalStateException naming what was tried and how to install etcd
   */
  static Path locate(String property, String env, String pathVariable, Path fallback) {
    if (!isBlank(property)) {
      return explicit(property, "system property " + PROPERTY);
    }
    if (!isBlank(env)) {
      return explicit(env, "environment variable " + ENV);
    }
    if (!isBlank(pathVariable)) {
      for (String dir : pathVariable.split(File.pathSeparator)) {
        if (!dir.isEmpty()) {
          Path candidate = Path.of(dir, "etcd");
          if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
            return candidate;
          }
        }
      }
    }
    if (Files.isRegularFile(fallback) && Files.isExecutable(fallback)) {
      return fallback;
    }
    throw new IllegalStateException(
        "etcd not found on PATH or at " + fallback + ": " + INSTALL_HINT);
  }

  private static Path explicit(String value, String source) {
    Path path = Path.of(value.trim());
    if (Files.isRegularFile(path) && Files.isExecutable(path)) {
      return path;
    }
    throw new IllegalStateException("etcd not found at " + path + " (from the " + source
        + "): no executable file there; " + INSTALL_HINT);
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
