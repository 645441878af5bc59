package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.ServerProcess;
import io.windowpane.testkit.process.TestBinaries;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running {@code redis-server} process bound to {@code 127.0.0.1} on a free port, with
 * persistence off ({@code --save "" --appendonly no}) and a private temporary directory.
 *
 * <p>Lifecycle: {@link #start()} returns once the server answers {@code PING}; {@link #close()}
 * stops the process (SIGTERM, then SIGKILL after 5 s) through its own {@link Process} handle,
 * never by name, waits for it to exit and deletes its directory. A JVM shutdown hook does the same
 * if the handle is never closed. Tests usually get a handle from {@link RedisServerExtension}
 * rather than starting one.
 *
 * <p>Thread-safe: the accessors are immutable values and {@link #close()} is idempotent (a second,
 * concurrent call returns at once without waiting for the first). Each {@link #client()} is a new connection, not shared.
 */
public final class RedisServer implements AutoCloseable {

  private final int port;
  private final String password;
  private final Process process;
  private final Path dataDir;
  private final Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean paused;

  RedisServer(int port, String password, Process process, Path dataDir, Thread shutdownHook) {
    this.port = port;
    this.password = password;
    this.process = process;
    this.dataDir = dataDir;
    this.shutdownHook = shutdownHook;
  }

  /**
   * Starts a server without a password.
   *
   * @throws IllegalStateException if {@code redis-server} is missing (the message says how to
   *     install it), exits early or does not answer {@code PING} within 10 s (the message carries
   *     the tail of its output)
   */
  public static RedisServer start() {
    return RedisLauncher.start(null);
  }

  /**
   * Starts a server that requires {@code AUTH password} ({@code --requirepass}).
   *
   * @param password non-empty, without whitespace or control characters
   * @throws IllegalArgumentException if the password is empty or contains such characters
   * @throws IllegalStateException as for {@link #start()}
   */
  public static RedisServer startWithPassword(String password) {
    return RedisLauncher.start(checkPassword(password));
  }

  /**
   * Starts a Redis 6.2 server without a password, the version without Functions, unpacked from
   * a Maven Central artifact ({@link TestBinaries#REDIS_6}).
   *
   * @throws IllegalStateException if this machine cannot run it, or as for {@link #start()}
   */
  public static RedisServer startRedis6() {
    return RedisLauncher.start(TestBinaries.REDIS_6.locate(), null, RedisLauncher.ExtraArgs.NONE);
  }

  /**
   * Starts a server without a password on {@code port} of loopback: again on the port of one
   * that was {@link #kill() killed}, or on a port a client was given before any server listened
   * there ({@link #freePort()}), to test starting during an outage.
   *
   * @throws IllegalStateException if the port is taken, or as for {@link #start()}
   */
  public static RedisServer startOn(int port) {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
    }
    return RedisLauncher.startOn(port);
  }

  /** A loopback port nothing listens on now (another process may take it later). */
  public static int freePort() {
    try {
      return io.windowpane.testkit.process.ServerProcess.freePorts(1)[0];
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Returns {@code password} if {@link #startWithPassword} accepts it, else throws. */
  static String checkPassword(String password) {
    if (password == null || password.isEmpty()
        || password.codePoints().anyMatch(c -> Character.isWhitespace(c) || c < 0x20)) {
      throw new IllegalArgumentException(
          "password: expected a non-empty string without whitespace or control characters");
    }
    return password;
  }

  /** Always {@code "127.0.0.1"}: the server listens on loopback only. */
  public String host() {
    return RedisLauncher.HOST;
  }

  /** The TCP port, chosen free at start. */
  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:PORT}; never carries the password (see {@link #password()}). */
  public String uri() {
    return "redis://" + host() + ":" + port;
  }

  /** The {@code requirepass} value, if the server was started with one. */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /** The server process, e.g. to check {@link ProcessHandle#isAlive()} after {@link #close()}. */
  public ProcessHandle process() {
    return process.toHandle();
  }

  /**
   * A new connection to this server, already authenticated if it has a password. The caller
   * closes it.
   *
   * @throws java.io.UncheckedIOException if the server cannot be reached within 5 s
   */
  public RespClient client() {
    RespClient client = RespClient.connect(host(), port, Duration.ofSeconds(5));
    if (password != null) {
      try {
        client.command("AUTH", password);
      } catch (RuntimeException e) {
        client.close();
        throw e;
      }
    }
    return client;
  }

  /**
   * Stops the process with SIGSTOP: it hangs, its connections stay open and nothing is answered
   * (what a stuck or swapped-out server looks like to clients) until {@link #resume()}.
   */
  public void pause() {
    signal("STOP");
    paused = true;
  }

  /** Lets a {@link #pause() paused} server run again (SIGCONT); it answers what was queued. */
  public void resume() {
    signal("CONT");
    paused = false;
  }

  /**
   * Kills the process at once (SIGKILL) and waits for it to exit: connections drop and its data
   * is gone (persistence is off). {@link #close()} still removes its directory.
   */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing " + this, e);
    }
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
          .redirectErrorStream(true).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: "
            + new String(kill.getInputStream().readAllBytes()));
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot run kill -" + name + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + this, e);
    }
  }

  /** The server's private working directory, deleted by {@link #close()}. */
  Path dataDir() {
    return dataDir;
  }

  /**
   * Stops the server and deletes its directory; returns once the process has exited (at most
   * about 10 s). Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      if (paused && process.isAlive()) {
        resume(); // a stopped process would sit on SIGTERM until the SIGKILL 5 s later
      }
      ServerProcess.stop(process, dataDir);
      ServerProcess.removeHook(shutdownHook);
    }
  }

  @Override
  public String toString() {
    return "RedisServer[" + uri() + ", pid " + process.pid() + (closed.get() ? ", closed]" : "]");
  }
}
