package io.windowpane.testkit.etcd;

import io.windowpane.testkit.process.ServerProcess;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running single-member {@code etcd} process (member {@code default}) listening on
 * {@code 127.0.0.1} only, with a client port and a peer port chosen free at start and a private
 * temporary data directory.
 *
 * <p>Lifecycle: {@link #start()} returns once {@code GET /health} answers
 * {@code {"health":"true"}}; {@link #close()} stops the process (SIGTERM, then SIGKILL after 5 s)
 * through its own {@link Process} handle, never by name, waits for it to exit and deletes its
 * directory. A JVM shutdown hook does the same if the handle is never closed. Tests usually get a
 * handle from {@link EtcdServerExtension} rather than starting one.
 *
 * <p>Thread-safe: the accessors are immutable values and {@link #close()} is idempotent (a second,
 * concurrent call returns at once without waiting for the first).
 */
public final class EtcdServer implements AutoCloseable {

  private final int clientPort;
  private final int peerPort;
  private final Process process;
  private final Path dataDir;
  private final Thread shutdownHook;
  private final AtomicBoolean closed = new AtomicBoolean();

  EtcdServer(int clientPort, int peerPort, Process process, Path dataDir, Thread shutdownHook) {
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.process = process;
    this.dataDir = dataDir;
    this.shutdownHook = shutdownHook;
  }

  /**
   * Starts a single-member cluster.
   *
   * @throws IllegalStateException if {@code etcd} is missing (the message says how to install
   *     it), exits early or is not healthy within 10 s (the message carries the tail of its output)
   */
  public static EtcdServer start() {
    return EtcdLauncher.start();
  }

  /** Always {@code "127.0.0.1"}: the server listens on loopback only. */
  public String host() {
    return EtcdLauncher.HOST;
  }

  /** The client port (gRPC and the HTTP gateway). */
  public int clientPort() {
    return clientPort;
  }

  /** The peer (raft) port; clients never need it. */
  public int peerPort() {
    return peerPort;
  }

  /** The client endpoint, {@code http://127.0.0.1:PORT}, as jetcd and etcdctl take it. */
  public String endpoint() {
    return "http://" + host() + ":" + clientPort;
  }

  /** The server process, e.g. to check {@link ProcessHandle#isAlive()} after {@link #close()}. */
  public ProcessHandle process() {
    return process.toHandle();
  }

  /** The server's private directory (data directory and log), deleted by {@link #close()}. */
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
      ServerProcess.stop(process, dataDir);
      ServerProcess.removeHook(shutdownHook);
    }
  }

  @Override
  public String toString() {
    return "EtcdServer[" + endpoint() + ", pid " + process.pid() + (closed.get() ? ", closed]"
        : "]");
  }
}
