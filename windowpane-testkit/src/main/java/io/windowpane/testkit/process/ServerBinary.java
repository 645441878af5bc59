package io.windowpane.testkit.process;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds a server executable: a system property, else an environment variable, else the first
 * file of that name on {@code PATH}, else {@code /usr/bin/NAME}; and when none of these has it,
 * obtains it by installing its Debian package ({@link DebianPackages}, as root or with
 * passwordless sudo) and looks again. An explicit override that is not executable is an error,
 * never silently replaced by another binary or an install. Every failure message says how to
 * install the binary by hand. Immutable and thread-safe.
 */
public final class ServerBinary {

  private final String name;
  private final String property;
  private final String env;
  private final String aptPackage;
  private final String installHint;

  /**
   * @param name the executable's file name, e.g. {@code "redis-server"}
   * @param property the system property that overrides the lookup
   * @param env the environment variable that overrides the lookup when the property is unset
   * @param aptPackage the Debian/Ubuntu package that installs the binary
   */
  public ServerBinary(String name, String property, String env, String aptPackage) {
    this.name = name;
    this.property = property;
    this.env = env;
    this.aptPackage = aptPackage;
    this.installHint = "install it with `sudo apt-get install -y " + aptPackage
        + "` (Debian/Ubuntu), or point the system property " + property
        + " or the environment variable " + env + " at the binary";
  }

  /** The executable's file name, e.g. {@code "redis-server"}. */
  public String name() {
    return name;
  }

  /** The Debian/Ubuntu package that installs the binary. */
  public String aptPackage() {
    return aptPackage;
  }

  /** The system property that overrides the lookup. */
  public String property() {
    return property;
  }

  /**
   * The binary for this JVM's property, environment and {@code PATH}; when it is not there and
   * no override names it, its Debian package is installed ({@link DebianPackages#install}) and
   * the lookup repeated.
   *
   * @throws IllegalStateException as for {@link #locate(String, String, String, Path)} when an
   *     override is wrong, or as for {@link DebianPackages#install} when the install is not
   *     possible
   */
  public Path locate() {
    Optional<Path> found = find();
    if (found.isPresent()) {
      return found.get();
    }
    DebianPackages.install(List.of(aptPackage));
    return lookup();
  }

  /**
   * The binary if the property, the environment or {@code PATH} has it now, without installing
   * anything.
   *
   * @throws IllegalStateException if an override names something that is not an executable file
   */
  public Optional<Path> find() {
    try {
      return Optional.of(lookup());
    } catch (IllegalStateException missing) {
      if (!isBlank(System.getProperty(property)) || !isBlank(System.getenv(env))) {
        throw missing;
      }
      return Optional.empty();
    }
  }

  private Path lookup() {
    return locate(System.getProperty(property), System.getenv(env), System.getenv("PATH"),
        Path.of("/usr/bin", name));
  }

  /**
   * The binary for the given inputs; null or blank inputs count as unset.
   *
   * @throws IllegalStateException naming what was tried and how to install the binary
   */
  public Path locate(String propertyValue, String envValue, String pathVariable, Path fallback) {
    if (!isBlank(propertyValue)) {
      return explicit(propertyValue, "system property " + property);
    }
    if (!isBlank(envValue)) {
      return explicit(envValue, "environment variable " + env);
    }
    if (!isBlank(pathVariable)) {
      for (String dir : pathVariable.split(File.pathSeparator)) {
        if (!dir.isEmpty() && isExecutableFile(Path.of(dir, name))) {
          return Path.of(dir, name);
        }
      }
    }
    if (isExecutableFile(fallback)) {
      return fallback;
    }
    throw new IllegalStateException(
        name + " not found on PATH or at " + fallback + ": " + installHint);
  }

  private Path explicit(String value, String source) {
    Path path = Path.of(value.trim());
    if (isExecutableFile(path)) {
      return path;
    }
    throw new IllegalStateException(name + " not found at " + path + " (from the " + source
        + "): no executable file there; " + installHint);
  }

  private static boolean isExecutableFile(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
