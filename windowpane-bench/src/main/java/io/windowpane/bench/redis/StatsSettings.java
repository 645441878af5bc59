package io.windowpane.bench.redis;

import java.time.Duration;

/**
 * What every contender of one statistics run is given.
 *
 * @param redisUri {@code redis://host:port} of the server under test
 * @param windowMillis the window length (60 s)
 * @param panes panes of windowpane's histogram window
 * @param population values per key per window, the window's population
 * @param windows windows of traffic the prefill records (1 for the load run; 2 for memory, so
 *     the state measured is in steady state)
 * @param namespace a name no other contender or scenario uses: windowpane's window name, and the
 *     prefix of the raw design's keys; characters of {@code [A-Za-z0-9_.:-]}, at most 64
 * @param timeout every Redis command's timeout (a raw call at 1,000,000 values takes seconds)
 */
record StatsSettings(String redisUri, long windowMillis, int panes, long population, int windows,
    String namespace, Duration timeout) {
}
