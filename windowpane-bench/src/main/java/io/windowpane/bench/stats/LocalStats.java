package io.windowpane.bench.stats;

/**
 * One statistics window on one machine, as the local benchmarks drive it: record a value for a
 * key now, and read the key's window now. Implementations read the clock they were given, once
 * per call. Thread-safe.
 */
interface LocalStats extends AutoCloseable {

  /** Records {@code value} for {@code key} now. */
  void record(String key, double value);

  /** The key's p99 now (the summary is computed in full, as the design computes it). */
  double p99(String key);

  /** How many values the key's window holds now. */
  long count(String key);

  @Override
  default void close() {}
}
