package io.windowpane.testkit.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/** The proxy's listening socket and its accept thread, closed and rebound to refuse connects. */
final class Listener {

  /*
   * Refusing connects closes the listening socket, so a connect gets ECONNREFUSED exactly as from
   * a port nobody listens on (accepting and closing at once would instead look like a connection
   * reset after a successful connect). Listening again rebinds the same port with SO_REUSEADDR;
   * only another process taking the port in between can make that fail. Closing the socket makes
   * the blocked accept() throw, which ends the accept thread; it is joined before returning, so
   * at most one accept thread exists at a time. Any other accept failure is transient (a peer
   * that reset before being accepted, descriptors exhausted) and retried after 10 ms.
   */

  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final String host;
  private final Registry registry;
  private final Consumer<Socket> onAccept;
  private final int port;
  private ServerSocket socket; // guarded by this; null while refusing or closed
  private Thread acceptor; // guarded by this

  Listener(String host, Registry registry, Consumer<Socket> onAccept) {
    this.host = host;
    this.registry = registry;
    this.onAccept = onAccept;
    try {
      this.socket = bind(host, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + host, e);
    }
    this.port = socket.getLocalPort();
  }

  int port() {
    return port;
  }

  synchronized void start() {
    ServerSocket listening = socket;
    acceptor = registry.spawn("fault-proxy-" + port + "-accept", () -> acceptLoop(listening));
    if (acceptor == null) {
      stop();
    }
  }

  /** Closes the listening socket ({@code true}) or binds the same port again ({@code false}). */
  synchronized void refuse(boolean refuse) {
    if (refuse && socket != null) {
      stop();
    } else if (!refuse && socket == null) {
      try {
        socket = bind(host, port);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen on " + host + ":" + port + " again", e);
      }
      start();
    }
  }

  /** Stops listening and waits (up to 1 s) for the accept thread to end. Idempotent. */
  synchronized void stop() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // unusable either way
      }
      socket = null;
    }
    if (acceptor != null) {
      try {
        TimeUnit.SECONDS.timedJoin(acceptor, 1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      acceptor = null;
    }
  }

  private void acceptLoop(ServerSocket listening) {
    while (true) {
      Socket client;
      try {
        client = listening.accept();
      } catch (IOException e) {
        if (listening.isClosed()) {
          return; // refusing connects, or the proxy is closing
        }
        LockSupport.parkNanos(RETRY_NANOS); // transient (out of descriptors...): retry, not spin
        continue;
      }
      onAccept.accept(client);
    }
  }

  private static ServerSocket bind(String host, int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.setReuseAddress(true); // rebinding must not wait for old connections' TIME_WAIT
      socket.bind(new InetSocketAddress(host, port), 128);
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}
