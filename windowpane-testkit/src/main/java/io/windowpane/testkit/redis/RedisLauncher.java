package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.ServerBinary;
import io.windowpane.testkit.process.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

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

  static final String HOST = ServerProcess.HOST;
  static final ServerBinary BINARY = new ServerBinary("redis-server", "windowpane.redis-server",
      "WINDOWPANE_REDIS_SERVER", "redis-server");
  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  private static final long POLL_MILLIS = 20;
  private static final int BIND_ATTEMPTS = 5;
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
    Path binary = BINARY.locate();
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
      int port = ServerProcess.freePorts(1)[0];
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
      Thread hook =
          ServerProcess.stopOnShutdown(process, dir, "windowpane-redis-" + port + "-stop");
      return new Launch(port, dir, process, hook, shown);
    } catch (IOException e) {
      ServerProcess.deleteRecursively(dir);
      throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
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
          return Optional.of(ServerProcess.portTaken(output())
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
      ServerProcess.stop(process, dir);
      ServerProcess.removeHook(hook);
      return tail;
    }

    private String output() {
      return ServerProcess.tail(dir.resolve("redis.log"));
    }
  }
}
