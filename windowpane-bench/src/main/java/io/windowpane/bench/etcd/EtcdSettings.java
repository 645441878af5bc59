package io.windowpane.bench.etcd;

/**
 * What every etcd contender of one run is given.
 *
 * @param endpoint {@code http://host:port} of the etcd under test
 * @param limit events allowed per window and key (high enough that every decision is allowed)
 * @param windowMillis the window length (windowpane's engine)
 * @param panes panes of windowpane's {@code SLIDING_PANES} window
 * @param prefix a key prefix no other contender, scenario or thread count of the run uses, of
 *     {@code [A-Za-z0-9_.:-]} (it doubles as the engine's namespace); keys are
 *     {@code prefix + "/" + ...}
 * @param naiveAttempts compare-and-swap attempts of the naive loop before it gives up
 * @param naivePauseMicros the naive loop's fixed pause after a lost compare (0: none)
 * @param timeoutMillis how long one etcd call (the engine: one decision) may take
 */
record EtcdSettings(String endpoint, long limit, long windowMillis, int panes, String prefix,
    int naiveAttempts, long naivePauseMicros, long timeoutMillis) {
}
