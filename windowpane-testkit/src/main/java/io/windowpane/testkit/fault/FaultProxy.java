package io.windowpane.testkit.fault;

import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fault-injecting TCP proxy for failover tests: listens on {@code 127.0.0.1} at a free port and
 * forwards every accepted connection to a target, such as a real {@code redis-server} or {@code
 * etcd}, until told to misbehave. Point the client under test at {@link #host()}:{@link #port()}.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
 *   RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
 *   ...
 *   proxy.blackHole();          // the server hangs: commands time out
 *   proxy.pass();               // it comes back: the same connections carry on
 *   proxy.dropConnections();    // every connection reset: the client reconnects
 *   proxy.retarget(other.host(), other.port()); // later connections go to a restarted server
 * }
 * }</pre>
 *
 * <p>Guarantees: in each direction bytes are forwarded in order, none lost or duplicated while a
 * connection lives, whatever the mode changes. End of stream (a half-close) is forwarded like
 * data. A connection whose target refuses, or cannot be reached within 5 s, is reset. The fault
 * modes ({@link #pass()}, {@link #latency(Duration)}, {@link #blackHole()}) replace one another;
 * {@link #refuseConnects(boolean)} is independent of them, and {@link #dropConnections()} is a
 * one-off action that leaves the mode as it is.
 *
 * <p>Not promised: timing finer than a few milliseconds, and an RST on every platform (where
 * {@code SO_LINGER 0} is not honoured, a dropped connection ends with a FIN, seen as end of
 * stream).
 *
 * <p>Thread-safe: every method may be called from any thread. A mode change is in force for every
 * connection when the method returns: a connection applies it to its next chunk, and a chunk
 * already waiting (held or delayed) is re-evaluated at once. {@link #close()} is idempotent.
 */
public final class FaultProxy implements AutoCloseable {

  /*
   * Design: a plain blocking proxy with one accept thread (Listener) and two pump threads per
   * connection (Link), all daemon threads named "fault-proxy-PORT-...". Each fault is made where a
   * real network or server makes it, so the client under test sees the same socket behaviour:
   *
   *   latency      each chunk held for the one-way delay before it is written (Gate)
   *   black hole   pumps stop reading and writing; connections stay open, TCP flow control pushes
   *                back on senders, reads on the other side time out
   *   dropped      both sockets of every link closed with SO_LINGER 0: both peers see a reset
   *   refused      the listening socket closed (ECONNREFUSED), later rebound to the same port
   *
   * Why blocking threads rather than a selector: a test proxy carries little traffic, and a pump
   * that simply stops reading is exactly a stalled peer, with backpressure for free. Mode changes
   * go through one lock and condition (Gate), so returning to pass wakes every held pump at once,
   * without polling. Registry holds the invariant that close() sees every link and thread ever
   * started, so it can reset and join them all.
   */

  /** What the proxy does with the bytes it reads; see the method that sets each. */
  public enum Mode {
    /** Forward at once ({@link #pass()}). */
    PASS,
    /** Forward each chunk after a one-way delay ({@link #latency(Duration)}). */
    LATENCY,
    /** Forward nothing, keep the connections ({@link #blackHole()}). */
    BLACK_HOLE
  }

  private static final String HOST = "127.0.0.1";
  private static final Duration MAX_LATENCY = Duration.ofHours(1);

  private volatile InetSocketAddress target; // unresolved: resolved at each dial
  private final Gate gate = new Gate();
  private final Registry registry = new Registry();
  private final LongAdder bytesForwarded = new LongAdder();
  private final AtomicLong linkIds = new AtomicLong();
  private final Listener listener;

  private FaultProxy(String targetHost, int targetPort) {
    this.target = InetSocketAddress.createUnresolved(targetHost, targetPort);
    this.listener = new Listener(HOST, registry, this::accepted);
  }

  /**
   * Starts a proxy to {@code targetHost:targetPort} in {@link Mode#PASS}, listening on {@code
   * 127.0.0.1} at a free port. The target is resolved and dialled once per accepted connection,
   * so it need not be up yet.
   *
   * @throws IllegalArgumentException if {@code targetPort} is outside 1..65535
   * @throws UncheckedIOException if no loopback port can be bound
   */
  public static FaultProxy start(String targetHost, int targetPort) {
    checkTarget(targetHost, targetPort);
    FaultProxy proxy = new FaultProxy(targetHost, targetPort);
    proxy.listener.start();
    return proxy;
  }

  /** Always {@code "127.0.0.1"}. */
  public String host() {
    return HOST;
  }

  /** The port clients connect to: the same for the proxy's whole life, refusals included. */
  public int port() {
    return listener.port();
  }

  /**
   * Sends later connections to {@code targetHost:targetPort}, e.g. a server restarted on another
   * port; so are connections accepted during a black hole and not yet dialled. Open connections
   * stay with the old target ({@link #dropConnections()} moves their clients over).
   *
   * @throws IllegalArgumentException if {@code targetPort} is outside 1..65535
   */
  public void retarget(String targetHost, int targetPort) {
    checkTarget(targetHost, targetPort);
    target = InetSocketAddress.createUnresolved(targetHost, targetPort);
  }

  /** Forwards at once in both directions: the initial mode. Ends a black hole or a latency. */
  public void pass() {
    gate.set(Mode.PASS, Duration.ZERO);
  }

  /**
   * Delays every chunk forwarded in either direction by {@code oneWay}, keeping the order, so a
   * request and its reply take at least {@code 2 x oneWay} longer. Applies to data read after the
   * call, to chunks already waiting, and to data a black hole held back (counted from its
   * release). Each direction of a connection holds one chunk at a time, so under a steady stream
   * later chunks may wait longer than {@code oneWay}. {@code Duration.ZERO} is {@link #pass()}.
   *
   * @throws IllegalArgumentException if {@code oneWay} is negative or longer than 1 hour
   */
  public void latency(Duration oneWay) {
    Objects.requireNonNull(oneWay, "oneWay");
    if (oneWay.isNegative() || oneWay.compareTo(MAX_LATENCY) > 0) {
      throw new IllegalArgumentException("oneWay must be in 0..PT1H, was " + oneWay);
    }
    gate.set(oneWay.isZero() ? Mode.PASS : Mode.LATENCY, oneWay);
  }

  /**
   * A hung backend, or a network dropping every packet: open connections stay open and new ones
   * are accepted, but nothing is forwarded either way, not even end of stream, and new connections
   * do not reach the target. A sender's writes succeed until the TCP buffers fill, then block;
   * reads on the other side time out.
   *
   * <p>When {@link #pass()} or {@link #latency(Duration)} ends it, the same connections resume
   * and every byte held back is delivered, in order and before later ones, as from a peer that was
   * merely stopped (SIGSTOP) and continued. Connections accepted meanwhile then reach the target.
   * Nothing is dropped; to lose the connections as well, call {@link #dropConnections()}.
   */
  public void blackHole() {
    gate.set(Mode.BLACK_HOLE, Duration.ZERO);
  }

  /**
   * Closes every open connection now, both sides with {@code SO_LINGER 0}, so the client and the
   * target see a reset. On return {@link #openConnections()} no longer counts them. The mode is
   * unchanged: later connections are forwarded as it says (normally, in {@link Mode#PASS}).
   */
  public void dropConnections() {
    registry.abortLinks();
  }

  /**
   * While {@code true}, new connects fail with "connection refused" (the listening socket is
   * closed); {@code false} listens again on the same {@link #port()}. Open connections are
   * untouched either way. Idempotent.
   *
   * @throws IllegalStateException if the proxy is closed
   * @throws UncheckedIOException if the port cannot be bound again (another process took it)
   */
  public void refuseConnects(boolean refuse) {
    if (registry.isClosed()) {
      throw new IllegalStateException("the proxy is closed");
    }
    listener.refuse(refuse);
  }

  /** The current fault mode. */
  public Mode mode() {
    return gate.mode();
  }

  /** Connections accepted and not yet ended, including those waiting out a black hole. */
  public int openConnections() {
    return registry.openLinks();
  }

  /**
   * Bytes forwarded so far, both directions together, each chunk counted as it is handed to the
   * other side's socket (so once a peer has read bytes, they are counted).
   */
  public long bytesForwarded() {
    return bytesForwarded.sum();
  }

  /**
   * Stops listening, resets every connection and waits up to 1 s in all for the proxy's threads
   * to end (daemon threads; one that does not end in time is left behind). Idempotent.
   */
  @Override
  public void close() {
    if (!registry.close()) {
      return;
    }
    gate.close();
    listener.stop();
    registry.abortLinks();
    registry.joinThreads(TimeUnit.SECONDS.toNanos(1));
  }

  @Override
  public String toString() {
    InetSocketAddress to = target;
    return "FaultProxy[" + HOST + ":" + port() + " -> " + to.getHostString() + ":" + to.getPort()
        + ", " + mode() + "]";
  }

  private void accepted(Socket client) {
    String name = "fault-proxy-" + port() + "-" + linkIds.incrementAndGet();
    Link link = new Link(client, () -> target, name, gate, bytesForwarded, registry);
    if (registry.add(link)) {
      link.start();
    } else {
      link.abort(); // closing: reset the connection rather than leave it unanswered
    }
  }

  private static void checkTarget(String targetHost, int targetPort) {
    Objects.requireNonNull(targetHost, "targetHost");
    if (targetPort < 1 || targetPort > 65_535) {
      throw new IllegalArgumentException("targetPort must be in 1..65535, was " + targetPort);
    }
  }
}
