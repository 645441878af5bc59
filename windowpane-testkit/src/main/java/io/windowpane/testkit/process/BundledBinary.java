package io.windowpane.testkit.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A server executable shipped inside a jar from Maven Central, unpacked once per module build
 * under {@code target/windowpane-servers/} (or the temporary directory outside a Maven module).
 * Maven caches the jar in {@code ~/.m2}, so a second build on the machine downloads nothing.
 * Thread-safe: concurrent unpacks write to distinct temporary files and move them into place.
 */
public final class BundledBinary {

  private final String name;
  private final String version;
  private final String artifact;
  private final Map<String, String> resourceByArch;

  /**
   * @param name the file name the executable gets, e.g. {@code "redis-server"}
   * @param version the version the executable reports, or its leading part, e.g. {@code "6.2"};
   *     checked ({@code --version} must print {@code v=VERSION.}) whenever it is located
   * @param artifact the Maven coordinates of the jar, for messages
   * @param resourceByArch the classpath resource for each {@code os.arch} it ships
   */
  public BundledBinary(String name, String version, String artifact,
      Map<String, String> resourceByArch) {
    this.name = name;
    this.version = version;
    this.artifact = artifact;
    this.resourceByArch = Map.copyOf(resourceByArch);
  }

  /** The version the executable reports, or its leading part. */
  public String version() {
    return version;
  }

  /** The Maven coordinates of the jar that ships it. */
  public String artifact() {
    return artifact;
  }

  /**
   * The unpacked executable, unpacking it first if needed, after checking that it runs and
   * reports {@link #version()}.
   *
   * @throws IllegalStateException if this OS/architecture has no build in the jar, the jar is
   *     not on the classpath, or the executable does not run here; the message says which
   */
  public synchronized Path locate() {
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String resource = resourceByArch.get(arch);
    if (!os.contains("linux") || resource == null) {
      throw new IllegalStateException(artifact + " has no " + name + " " + version + " for "
          + os + "/" + arch + " (it ships " + resourceByArch.keySet() + " on Linux)");
    }
    Path target = directory().resolve(name + "-" + version).resolve(name);
    try {
      if (!Files.isExecutable(target)) {
        unpack(resource, target);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot unpack " + name + " from " + artifact + " to "
          + target + ": " + e.getMessage(), e);
    }
    String reported = versionOutput(target);
    if (!reported.contains("v=" + version + ".")) {
      throw new IllegalStateException(target + " (from " + artifact + ") does not run here or is"
          + " not version " + version + "; it printed: " + reported.strip());
    }
    return target;
  }

  private void unpack(String resource, Path target) throws IOException {
    try (InputStream in = BundledBinary.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath: the testkit"
            + " depends on " + artifact + ", which Maven downloads from Central");
      }
      Files.createDirectories(target.getParent());
      Path part = Files.createTempFile(target.getParent(), name, ".part");
      Files.copy(in, part, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("rwxr-xr-x"));
      try {
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(part, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static Path directory() {
    Path moduleTarget = Path.of(System.getProperty("user.dir"), "target");
    if (Files.isDirectory(moduleTarget)) {
      return moduleTarget.resolve("windowpane-servers");
    }
    return Path.of(System.getProperty("java.io.tmpdir"),
        "windowpane-servers-" + System.getProperty("user.name"));
  }

  private static String versionOutput(Path binary) {
    try {
      Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true)
          .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      return out;
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }
}
