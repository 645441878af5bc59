package io.windowpane.spi;

/**
 * One request of an all-or-nothing group, as an engine sees it
 * ({@link Engine#tryAcquireAllOrNothingAsync}): {@code permits} of {@code key} on the limiter
 * named {@code limiter} (unique per engine), whose store on this engine is {@code store} and
 * whose smallest limit is {@code maxPermits}. Validated by the caller:
 * {@code 1 <= permits <= maxPermits}.
 */
public record GroupRequest(LimiterStore store, String limiter, String key, long permits,
    long maxPermits) {}
