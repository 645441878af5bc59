package io.windowpane.redis.internal;

import io.windowpane.spi.EventTimeResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Event-time calls (wp_add_at, wp_record_at, wp_xrecord_at; docs/redis-protocol.md "Event
 * time"): the ARGV they share and their {verdict, count, now} reply as an
 * {@link EventTimeResult}. The server judges the event at its own now (or the caller's time,
 * with client time), so the verdict and the placement are one atomic step.
 */
final class EventTimeCalls {

  /** Lua numbers are doubles: times within +-2^52 ms (far past is late, far future ahead). */
  private static final long MAX_TIME = 1L << 52;

  private EventTimeCalls() {}

  /** ARGV: the time, at (clamped), maxAhead, then {@code rest}. */
  static String[] args(TimeArg time, long atMillis, long maxAheadMillis, String... rest) {
    String[] args = new String[3 + rest.length];
    args[0] = time.now();
    args[1] = Long.toString(Math.max(-MAX_TIME, Math.min(MAX_TIME, atMillis)));
    args[2] = Long.toString(maxAheadMillis);
    System.arraycopy(rest, 0, args, 3, rest.length);
    return args;
  }

  /** Calls {@code function} and reads its reply. */
  static CompletionStage<EventTimeResult> call(RedisSeam seam, String function, String[] keys,
      String[] args) {
    CompletableFuture<List<Long>> reply = seam.callIntegers(function, keys, args);
    return Calls.translated(reply.thenApply(EventTimeCalls::result), "event-time " + function);
  }

  static EventTimeResult result(List<Long> reply) {
    long verdict = reply.get(0);
    long count = reply.get(1);
    long now = reply.get(2);
    if (verdict == 0) {
      return EventTimeResult.recorded(count, now);
    }
    return verdict == 1 ? EventTimeResult.late(count, now) : EventTimeResult.ahead(now);
  }
}
