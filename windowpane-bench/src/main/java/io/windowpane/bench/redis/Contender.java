package io.windowpane.bench.redis;

/**
 * One design of "may one more event happen for this key in the last window?" against Redis (or,
 * from {@code io.windowpane.bench.etcd}, against etcd), as
 * its users would write it. An instance owns its client (connections, threads) and is used for
 * one scenario: {@link #prepare} once with the scenario's keys, then {@link #decide} from many
 * threads at once, then {@link #close}.
 *
 * <p>Implementations are thread-safe and make blocking calls; a failure is thrown, never turned
 * into a decision.
 */
public interface Contender extends AutoCloseable {

  /**
   * Builds whatever the contender keeps per key (key strings, proxies, limiter objects) and does
   * any per-key setup the design needs before use. Not measured.
   */
  void prepare(String[] keys);

  /** One decision for key number {@code keyIndex} of the prepared keys. */
  Outcome decide(int keyIndex) throws Exception;

  /** Releases the client; waits at most a few seconds. */
  @Override
  void close();
}
