package io.windowpane.bench;

/**
 * One rate-limit decision for one fixed hot key: record one event now if it fits the limit, and
 * say whether it did. Implementations read the time themselves, once per call, as each library
 * does in production. Thread-safe: a benchmark shares one instance between all its threads.
 */
interface Decider extends AutoCloseable {

  /** Records one event if it fits the limit; returns whether it did. */
  boolean decide();

  /** Releases what the implementation holds (nothing, for most). */
  @Override
  default void close() {}
}
