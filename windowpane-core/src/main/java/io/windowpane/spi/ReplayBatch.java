package io.windowpane.spi;

/**
 * One batch of replayed events for the {@code replayAllAsync} forms of {@link CounterStore},
 * {@link LimiterStore} and {@link StatsStore}: {@code count} events (or permits) of {@code key}
 * at {@code atMillis}, or for statistics the {@code values} recorded then (null otherwise), under
 * the id {@code replayId}. The contract of each is that of {@code replayAsync} (see
 * {@link Engine#replays()}).
 */
public record ReplayBatch(String key, long count, double[] values, long atMillis,
    String replayId) {}
