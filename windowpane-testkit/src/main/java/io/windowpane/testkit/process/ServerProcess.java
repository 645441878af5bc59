package io.windowpane.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The process plumbing the server launchers share: free loopback ports, a shutdown hook, stopping
 * (SIGTERM, then SIGKILL) through the process's own handle, never by name, deleting the private
 * directory, and reading the tail of the log file a server writes its output to. Stateless and
 * thread-safe.
 */
public final class ServerProcess {

  /** The loopback address every server binds. */
  public static final String HOST = "127.0.0.1";
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
  private static final int TAIL_LINES = 30;

  private ServerProcess() {}

  /**
   * {@code count} distinct ports that were free on {@link #HOST} a moment ago: all are bound at
   * once, then released, so another process may take one before the server binds it (see
   * {@link #portTaken}).
   */
  public static int[] freePorts(int count) throws IOException {
    InetAddress loopback = InetAddress.getByName(HOST);
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        sockets.add(new ServerSocket(0, 1, loopback));
        ports[i] = sockets.get(i).getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  /** Memory-backed file system where fsync is free; used for server data when it has room. */
  private static final Path MEMORY_FS = Path.of("/dev/shm");
  private static final long MEMORY_FS_MIN_FREE = 1L << 30; // 1 GiB

  /**
   * A new private directory for a server's data. On Linux it lies in {@code /dev/shm} (memory)
   * when that is writable and has at least 1 GiB free, otherwise in the default temporary
   * directory. A server's data there survives the server's own kill and restart, as on disk;
   * only durability across a machine crash is lost, which no test exercises. It matters for
   * etcd, whose every commit waits for fsyncs: about 2 ms each on this project's VM disk against
   * 0.05 ms in memory ({@code dd oflag=dsync}, 4 KiB blocks).
   */
  public static Path scratchDirectory(String prefix) throws IOException {
    if (Files.isDirectory(MEMORY_FS) && Files.isWritable(MEMORY_FS)) {
      try {
        if (Files.getFileStore(MEMORY_FS).getUsableSpace() >= MEMORY_FS_MIN_FREE) {
          return Files.createTempDirectory(MEMORY_FS, prefix);
        }
      } catch (IOException e) {
        // fall through to the default temporary directory
      }
    }
    return Files.createTempDirectory(prefix);
  }

  /**
   * Registers a JVM shutdown hook that {@link #stop stops} the process and deletes {@code dir};
   * returns it for {@link #removeHook}.
   */
  public static Thread stopOnShutdown(Process process, Path dir, String threadName) {
    Thread hook = new Thread(() -> stop(process, dir), threadName);
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /**
   * Stops the process (SIGTERM, then SIGKILL after 5 s) and deletes its directory. Returns once
   * the process has exited, or on interrupt after a SIGKILL (the interrupt flag stays set).
   */
  public static void stop(Process process, Path dir) {
    boolean interrupted = false;
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      interrupted = true;
    }
    deleteRecursively(dir);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Unregisters a shutdown hook; a no-op once the JVM is already shutting down. */
  public static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to; stop() is safe to run twice.
    }
  }

  /** Deletes {@code dir} and its contents, best effort; null or missing is a no-op. */
  public static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Best effort: a leftover temp directory is harmless and the OS cleans /tmp.
    }
  }

  /** The last 30 lines of {@code log}, or a note saying why it could not be read. */
  public static String tail(Path log) {
    try {
      List<String> lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines()
          .collect(Collectors.toList());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES),
          lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(output unreadable: " + e + ")";
    }
  }

  /** Whether a server output says it lost the race for a port ("address already in use"). */
  public static boolean portTaken(String output) {
    return output.toLowerCase(Locale.ROOT).contains("address already in use");
  }
}
