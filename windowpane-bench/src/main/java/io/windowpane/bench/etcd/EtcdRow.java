package io.windowpane.bench.etcd;

import io.windowpane.bench.redis.Result;

/**
 * One contender's measurement at one thread count in one scenario.
 *
 * @param threads caller threads
 * @param result decisions, latencies and outcomes, as the load run counted them
 * @param counts what the contender's client did in the measured interval
 */
record EtcdRow(int threads, Result result, EtcdCounts counts) {

  /**
   * {@code x} per operation the client started in the interval (decisions and give-ups), or NaN
   * with none; {@code x} and the operations come from the same counters, so the same interval.
   */
  double perDecision(long x) {
    long d = counts.operations();
    return d == 0 ? Double.NaN : x / (double) d;
  }
}
