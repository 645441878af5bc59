package io.windowpane.bench.redis;

/**
 * A statistics design as the load generator drives it: {@link #prepare} prefills the window of
 * every key (not measured), each {@link #decide} records one value (and, for a request, reads
 * the window's p99) and returns {@link Outcome#COUNTED}. Adds what the run checks afterwards.
 */
interface StatsContender extends Contender {

  /** How many values the window of key number {@code keyIndex} holds now. */
  long population(int keyIndex) throws Exception;

  /** The p99 the last request read (NaN if this contender reads none): a sanity check. */
  double lastP99();
}
