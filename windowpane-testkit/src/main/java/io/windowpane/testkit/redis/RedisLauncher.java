package io.windowpane.testkit.redis;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Starts and stops {@code redis-server} processes for {@link RedisServer}. Stateless and
 * thread-safe: concurrent starts get distinct ports and directories.
 */
final class RedisLauncher {

  /*
   * Design note. A free port is found by binding 127.0.0.1:0 and closing the socket, which leaves
   * a window in which another process may take the port. Instead of reserving ports (not possible
   * across processes), a launch that dies with "Address already in use" is retried on a fresh port,
   * up to BIND_ATTEMPTS times. Readiness is the server answering PING over RESP, and the answer
   * must come from our process: INFO's process_id is compared to the child's pid, so a server that
   * won the race for the port is never mistaken for ours. Output goes to a log file in the
   * server's private directory (no pipe to drain, no pump thread); its tail goes into every
   * failure message. A JVM shutdown hook stops the process if nobody closes the handle.
   */

  static final String HOST = "127.0.0.1";
  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  private static final long POLL_MILLIS = 20;
  private static final int BIND_ATTEMPTS = 5;
  private static final int TAIL_LINES = 30;
  /** The failure of a launch that lost the race for its port; retried on another port. */
  private static final String PORT_TAKEN = "port taken";

  private RedisLauncher() {}

  /**
   * Starts a server and returns once it answers PING.
   *
   * @param password the {@code requirepass} value, or null for none
   * @throws IllegalStateException if the binary is missing, the process exits or does not answer
   *     within {@link #STARTUP_TIMEOUT}; the message carries the tail of the server's output
   */
  static RedisServer start(String password) {
    Path binary = RedisBinary.locate();
    String lastOutput = "";
    for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
      Launch launch = launch(binary, password);
      Optional<String> failure = launch.awaitReady(password);
      if (failure.isEmpty()) {
        return new RedisServer(launch.port, password, launch.process, launch.dir, launch.hook);
      }
      lastOutput = launch.abort();
      if (!failure.get().equals(PORT_TAKEN)) {
        throw new IllegalStateException(failure.get() + "; command: " + launch.command
            + "; last output of redis-server:\n" + lastOutput);
      }
    }
    throw new IllegalStateException("redis-server could not bind a free port on " + HOST + " in "
        + BIND_ATTEMPTS + " attempts; last output:\n" + lastOutput);
  }

  private static Launch launch(Path binary, String password) {
    Path dir = null;
    try {
      int port = freePort();
      dir = Files.createTempDirectory("windowpane-redis-");
      List<String> command = new ArrayList<>(List.of(binary.toString(),
          "--port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly", "no",
          "--daemonize", "no", "--dir", dir.toString()));
      String shown = command.stream().map(arg -> arg.isEmpty() ? "\"\"" : arg)
          .collect(Collectors.joining(" "));
      if (password != null) {
        command.addAll(List.of("--requirepass", password));
        shown += " --requirepass ****";
      }
      Process process = new ProcessBuilder(command).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
      Path ownDir = dir;
      Thread hook = new Thread(() -> stop(process, ownDir), "windowpane-redis-" + port + "-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      return new Launch(port, dir, process, hook, shown);
    } catch (IOException e) {
      deleteRecursively(dir);
      throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
    }
  }

  /**
   * Stops the process (SIGTERM, then SIGKILL after {@link #STOP_TIMEOUT}) and deletes its
   * directory. Returns once the process has exited, or on interrupt after a SIGKILL.
   */
  static void stop(Process process, Path dir) {
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
  static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The hook is running or about to; stop() is safe to run twice.
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Best effort: a leftover temp directory is harmless and the OS cleans /tmp.
    }
  }

  /** One started, not yet ready process. */
  private static final class Launch {
    final int port;
    final Path dir;
    final Process process;
    final Thread hook;
    final String command;

    Launch(int port, Path dir, Process process, Thread hook, String command) {
      this.port = port;
      this.dir = dir;
      this.process = process;
      this.hook = hook;
      this.command = command;
    }

    /** Empty once ready; else {@link #PORT_TAKEN} or a description of the failure. */
    Optional<String> awaitReady(String password) {
      long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
      while (true) {
        if (!process.isAlive()) {
          return Optional.of(output().toLowerCase(Locale.ROOT).contains("address already in use")
              ? PORT_TAKEN
              : "redis-server exited with code " + process.exitValue()
                  + " before answering PING on " + HOST + ":" + port);
        }
        if (answersPing(password)) {
          return Optional.empty();
        }
        if (System.nanoTime() - deadline > 0) {
          return Optional.of("redis-server did not answer PING on " + HOST + ":" + port
              + " within " + STARTUP_TIMEOUT.toSeconds() + " s");
        }
        try {
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.of("interrupted while waiting for redis-server on port " + port);
        }
      }
    }

    private boolean answersPing(String password) {
      try (RespClient client = RespClient.connect(HOST, port, PROBE_TIMEOUT)) {
        if (password != null) {
          client.command("AUTH", password);
        }
        Object info = client.command("INFO", "server");
        return info instanceof String
            && ((String) info).contains("process_id:" + process.pid() + "\r\n")
            && "PONG".equals(client.command("PING"));
      } catch (UncheckedIOException | RespErrorException notYet) {
        return false;
      }
    }

    /** Stops the process, removes the hook and returns the tail of its output. */
    String abort() {
      String tail = output();
      stop(process, dir);
      removeHook(hook);
      return tail;
    }

    private String output() {
      try {
        String text = new String(Files.readAllBytes(dir.resolve("redis.log")),
            StandardCharsets.UTF_8);
        List<String> lines = text.lines().collect(Collectors.toList());
        return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES),
            lines.size()));
      } catch (IOException | UncheckedIOException e) {
        return "(output unreadable: " + e + ")";
      }
    }
  }
}
