package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.ServerBinary;
import io.windowpane.testkit.process.ServerProcess;
import io.windowpane.testkit.process.TestBinaries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
   *
   * Every launch takes two free ports: the client port and a spare that ExtraArgs may put on the
   * command line (RedisCluster passes it as --cluster-port, so the bus port is chosen free rather
   * than assumed free at port + 10000). A bus port lost to another process fails the launch with
   * the same "Address already in use" line, so one retry loop covers both ports. Values following
   * --requirepass and --masterauth are masked in the command shown in failure messages.
   */

  static final String HOST = ServerProcess.HOST;
  static final ServerBinary BINARY = TestBinaries.REDIS_SERVER;
  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  private static final long POLL_MILLIS = 20;
  private static final int BIND_ATTEMPTS = 5;
  /** The failure of a launch that lost the race for its port; retried on another port. */
  private static final String PORT_TAKEN = "port taken";
  private static final List<String> SECRET_OPTIONS = List.of("--requirepass", "--masterauth");

  /** Arguments a launch appends to the command line, e.g. the cluster options. */
  @FunctionalInterface
  interface ExtraArgs {
    /** None: a plain standalone server. */
    ExtraArgs NONE = (dir, sparePort) -> List.of();

    /**
     * The arguments for one launch; called again, with a new directory and port, on each retry.
     *
     * @param dir the launch's private directory, deleted when the server stops
     * @param sparePort a second port that was free on {@link #HOST} a moment ago, distinct from
     *     the client port
     */
    List<String> forLaunch(Path dir, int sparePort);
  }

  private RedisLauncher() {}

  /**
   * Starts a server and returns once it answers PING.
   *
   * @param password the {@code requirepass} value, or null for none
   * @throws IllegalStateException if the binary is missing, the process exits or does not answer
   *     within {@link #STARTUP_TIMEOUT}; the message carries the tail of the server's output
   */
  static RedisServer start(String password) {
    return start(password, ExtraArgs.NONE);
  }

  /**
   * Starts a server with {@code extraArgs} appended to its command line and returns once it
   * answers PING. A launch that loses the race for either port is retried, as by
   * {@link #start(String)}.
   *
   * @param password the {@code requirepass} value, or null for none
   * @throws IllegalStateException as for {@link #start(String)}
   */
  static RedisServer start(String password, ExtraArgs extraArgs) {
    return start(BINARY.locate(), password, extraArgs);
  }

  /**
   * Starts {@code binary} (another version of redis-server) with {@code extraArgs}, as
   * {@link #start(String, ExtraArgs)} does.
   *
   * @throws IllegalStateException as for {@link #start(String)}
   */
  static RedisServer start(Path binary, String password, ExtraArgs extraArgs) {
    String lastOutput = "";
    for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
      Launch launch = launch(binary, password, extraArgs);
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

  /**
   * Starts redis-server on {@code port} (no retry: a port taken fails) and returns once it
   * answers PING.
   */
  static RedisServer startOn(int port) {
    Launch launch = launch(BINARY.locate(), null, ExtraArgs.NONE, port);
    Optional<String> failure = launch.awaitReady(null);
    if (failure.isPresent()) {
      String lastOutput = launch.abort();
      throw new IllegalStateException(failure.get() + "; command: " + launch.command
          + "; last output of redis-server:\n" + lastOutput);
    }
    return new RedisServer(launch.port, null, launch.process, launch.dir, launch.hook);
  }

  private static Launch launch(Path binary, String password, ExtraArgs extraArgs) {
    return launch(binary, password, extraArgs, 0);
  }

  private static Launch launch(Path binary, String password, ExtraArgs extraArgs,
      int fixedPort) {
    Path dir = null;
    try {
      int[] ports = ServerProcess.freePorts(2);
      int port = fixedPort > 0 ? fixedPort : ports[0];
      dir = Files.createTempDirectory("windowpane-redis-");
      List<String> command = new ArrayList<>(List.of(binary.toString(),
          "--port", Integer.toString(port), "--bind", HOST, "--save", "", "--appendonly", "no",
          "--daemonize", "no", "--dir", dir.toString()));
      if (password != null) {
        command.addAll(List.of("--requirepass", password));
      }
      command.addAll(extraArgs.forLaunch(dir, ports[1]));
      String shown = shown(command);
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

  /** The command as failure messages show it: empty arguments quoted, secrets masked. */
  static String shown(List<String> command) {
    List<String> shown = new ArrayList<>(command.size());
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      boolean secret = i > 0 && SECRET_OPTIONS.contains(command.get(i - 1));
      shown.add(secret ? "****" : arg.isEmpty() ? "\"\"" : arg);
    }
    return String.join(" ", shown);
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
