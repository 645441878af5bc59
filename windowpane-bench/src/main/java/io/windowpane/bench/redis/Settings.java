package io.windowpane.bench.redis;

/**
 * What every contender of one run is given.
 *
 * @param redisUri {@code redis://host:port} (or {@code rediss://}) of the server under test
 * @param limit events allowed per window and key
 * @param windowMillis the window length
 * @param panes panes of the window, for designs that cut it into panes (windowpane's
 *     {@code SLIDING_PANES})
 * @param namespace a prefix no other contender or scenario of the run uses, so each starts on
 *     fresh keys; it ends with {@code ':'}
 */
record Settings(String redisUri, long limit, long windowMillis, int panes, String namespace) {
}
