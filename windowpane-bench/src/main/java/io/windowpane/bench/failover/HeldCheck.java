package io.windowpane.bench.failover;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Redis left at the end of a trial holds, key by key, against what the {@link Tally}
 * says it must hold (see the Tally's design note for the expectations and their bounds).
 *
 * <p>Read on a connection of its own, straight to the server (not through the proxy or the
 * chain), once the load has stopped and the chain's journal is empty. The limiter's holdings are
 * read as {@code limit - 1 - remaining} of one more {@code tryAcquire} per key (the window is
 * 60 s and the trial shorter, so nothing has left it: exact); the counter's as its count.
 *
 * @param keys keys checked
 * @param expected permits the limiter must hold at least (sum over keys)
 * @param allowedDoubles the most permits that calls answered by the fallback may add on top
 *     (slow ones; after a kill also those in flight across it, which Lettuce may re-send)
 * @param held permits it holds
 * @param lost sum over keys of what is missing below {@code expected}
 * @param surplus sum over keys of what lies beyond {@code expected + slow}: unexplained
 * @param keysShort keys holding less than expected
 * @param keysOver keys holding more than the bound
 * @param countLow events the counter must hold at least
 * @param countHigh events it may hold at most
 * @param counted events it holds
 * @param countLost sum over keys of what is missing below {@code countLow}
 * @param countSurplus sum over keys of what lies beyond {@code countHigh}
 */
record HeldCheck(int keys, long expected, long allowedDoubles, long held, long lost,
    long surplus, long keysShort, long keysOver, long countLow, long countHigh, long counted,
    long countLost, long countSurplus) {

  private static final int CHUNK = 256;

  /** Reads {@code server} and compares it with {@code tally}. */
  static HeldCheck read(RedisServer server, boolean killed, String limiterName,
      String counterName, Limit limit, String[] keys, Tally tally) {
    long[] held = new long[keys.length];
    long[] counted = new long[keys.length];
    RedisEngine engine = RedisEngine.builder().uri(server.uri()).timeout(Duration.ofSeconds(5))
        .build();
    try (Windowpane direct = Windowpane.using(engine)) {
      RateLimiter limiter = direct.limiter(limiterName, limit);
      WindowCounter counter = direct.counter(counterName, limit.window());
      for (int from = 0; from < keys.length; from += CHUNK) {
        List<String> chunk = Arrays.asList(keys).subList(from, Math.min(keys.length, from + CHUNK));
        List<Decision> decisions = limiter.tryAcquireAll(chunk, 1);
        List<Long> counts = counter.countAll(chunk);
        for (int i = 0; i < chunk.size(); i++) {
          Decision d = decisions.get(i);
          // allowed: this call took one more; denied: the window is full
          held[from + i] = d.allowed() ? limit.permits() - 1 - d.remaining() : limit.permits();
          counted[from + i] = counts.get(i);
        }
      }
    }
    long expected = 0;
    long doubles = 0;
    long heldSum = 0;
    long lost = 0;
    long surplus = 0;
    long keysShort = 0;
    long keysOver = 0;
    long countLow = 0;
    long countHigh = 0;
    long countedSum = 0;
    long countLost = 0;
    long countSurplus = 0;
    for (int k = 0; k < keys.length; k++) {
      long lo = killed
          ? tally.allowedByLocal.get(k) - tally.allowedByLocalBeforeFault.get(k)
              + tally.allowedByPrimaryAfterFault.get(k)
          : tally.allowed.get(k);
      long hi = lo + tally.slowAllowedByLocal.get(k) + (killed
          ? tally.allowedByLocalAcrossFault.get(k) + tally.allowedByLocalBeforeFault.get(k) : 0);
      expected += lo;
      doubles += hi - lo;
      heldSum += held[k];
      if (held[k] < lo) {
        lost += lo - held[k];
        keysShort++;
      } else if (held[k] > hi) {
        surplus += held[k] - hi;
        keysOver++;
      }
      long cLo = killed ? tally.addsAfterFault.get(k) : tally.adds.get(k);
      long cHi = killed
          ? cLo + tally.addsAcrossFault.get(k) + tally.slowAddsAfterFault.get(k)
              + tally.addsBeforeFaultWhileTripped.get(k)
          : cLo + tally.slowAdds.get(k);
      countLow += cLo;
      countHigh += cHi;
      countedSum += counted[k];
      countLost += Math.max(0, cLo - counted[k]);
      countSurplus += Math.max(0, counted[k] - cHi);
    }
    return new HeldCheck(keys.length, expected, doubles, heldSum, lost, surplus, keysShort,
        keysOver, countLow, countHigh, countedSum, countLost, countSurplus);
  }

  /** Whether every key holds what it must: nothing missing, nothing unexplained. */
  boolean exact() {
    return lost == 0 && surplus == 0 && countLost == 0 && countSurplus == 0;
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("keys", keys);
    m.put("limiterExpected", expected);
    m.put("limiterMayBeCountedTwice", allowedDoubles);
    m.put("limiterHeld", held);
    m.put("limiterLost", lost);
    m.put("limiterUnexplainedSurplus", surplus);
    m.put("keysShort", keysShort);
    m.put("keysOver", keysOver);
    m.put("counterAtLeast", countLow);
    m.put("counterAtMost", countHigh);
    m.put("counterHeld", counted);
    m.put("counterLost", countLost);
    m.put("counterUnexplainedSurplus", countSurplus);
    return m;
  }
}
