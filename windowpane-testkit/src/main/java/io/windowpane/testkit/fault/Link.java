package io.windowpane.testkit.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/** One proxied connection: a client socket, a target socket and the two pumps between them. */
final class Link {

  /*
   * Two pump threads per connection, "up" (client to target) and "down" (target to client).
   * The up thread first waits out a black hole (a hung backend accepts but answers nothing, so the
   * target is not even dialled), then connects to the proxy's current target (so a retarget
   * reaches connections still waiting) and starts the down thread. Each pump
   * loops: read one chunk, ask the Gate when it may go, write it. A pump holds at most one chunk;
   * while it waits, later bytes stay in the kernel's buffers and TCP flow control pushes back on
   * the sender, as a stopped peer would. End of stream is forwarded like data (through the gate) as
   * a half-close, so a client's shutdownOutput reaches the server.
   *
   * Ending: when both pumps have forwarded end of stream, both sockets are closed normally. Any
   * I/O error, a failed connect, dropConnections() or close() aborts the link instead: both sockets
   * are closed with SO_LINGER 0 (an RST where the platform sends one), which also unblocks a pump
   * stuck in read, write or connect; pumps waiting in the gate are woken through Gate.wakeAll() and
   * see `aborted`. Ending is idempotent and tells the proxy exactly once.
   */

  private static final int CHUNK_BYTES = 16 * 1024;
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private final Socket client;
  private final Socket target = new Socket();
  private final Supplier<InetSocketAddress> destination;
  private final String name;
  private final Gate gate;
  private final LongAdder bytesForwarded;
  private final Registry registry;
  private final AtomicInteger pumpsRunning = new AtomicInteger(2);
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile boolean aborted;

  /** {@code destination} is read when the target is dialled; it may be unresolved. */
  Link(Socket client, Supplier<InetSocketAddress> destination, String name, Gate gate,
      LongAdder bytesForwarded, Registry registry) {
    this.client = client;
    this.destination = destination;
    this.name = name;
    this.gate = gate;
    this.bytesForwarded = bytesForwarded;
    this.registry = registry;
  }

  void start() {
    if (registry.spawn(name + "-up", this::connectThenPumpUp) == null) {
      abort();
    }
  }

  /** Closes both sockets at once with an RST where possible; idempotent, never blocks. */
  void abort() {
    aborted = true;
    gate.wakeAll();
    reset(client);
    reset(target);
    end();
  }

  private void connectThenPumpUp() {
    try {
      if (!gate.awaitOpen(() -> aborted)) {
        abort();
        return;
      }
      client.setTcpNoDelay(true);
      target.setTcpNoDelay(true);
      InetSocketAddress to = destination.get();
      target.connect(new InetSocketAddress(to.getHostString(), to.getPort()), // resolved now
          CONNECT_TIMEOUT_MILLIS);
    } catch (IOException e) {
      abort(); // the target refused or is unreachable: the client sees its connection reset
      return;
    } catch (InterruptedException e) {
      abort();
      return;
    }
    if (registry.spawn(name + "-down", () -> pump(target, client)) == null) {
      abort();
      return;
    }
    pump(client, target);
  }

  private void pump(Socket from, Socket to) {
    byte[] chunk = new byte[CHUNK_BYTES];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        int n = in.read(chunk);
        if (!gate.awaitForwarding(System.nanoTime(), () -> aborted)) {
          abort();
          return;
        }
        if (n < 0) {
          to.shutdownOutput();
          break;
        }
        bytesForwarded.add(n); // before the write, so a reader of the bytes sees them counted
        out.write(chunk, 0, n);
      }
    } catch (IOException | InterruptedException e) {
      abort();
      return;
    }
    if (pumpsRunning.decrementAndGet() == 0) {
      close(client);
      close(target);
      end();
    }
  }

  private void end() {
    if (ended.compareAndSet(false, true)) {
      registry.remove(this);
    }
  }

  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed, or never connected: nothing to reset
    }
    close(socket);
  }

  private static void close(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing is best effort; the socket is unusable either way
    }
  }
}
