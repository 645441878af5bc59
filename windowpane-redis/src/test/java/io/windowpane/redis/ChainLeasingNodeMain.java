package io.windowpane.redis;

import io.windowpane.Failover;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node of {@link RedisChainCompositionIT}'s two-JVM scenario, in a JVM of its own: a chain
 * [Redis, local] at {@code fleetNodes(2)} with a leasing limiter on one hot key, 4 threads of
 * {@code tryAcquire} until a line arrives on its standard input (or 60 s pass). Prints
 * {@code ready} once it has decided 200 requests, then at the end, one per line: {@code window W N} for each
 * 1 s window W (epoch seconds) and the N admissions certainly in it (the clock read before and
 * after the call in the same window), then {@code errors E}, {@code wrong R} (releases that
 * reached a member that had not granted them) and {@code leases L}. Arguments: the Redis URI,
 * the limit.
 */
public final class ChainLeasingNodeMain {

  private ChainLeasingNodeMain() {}

  public static void main(String[] args) throws Exception {
    long limit = Long.parseLong(args[1]);
    long end = System.currentTimeMillis() + 60_000;
    java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
    AtomicLong decided = new AtomicLong();
    RedisChainCompositionIT.Recording redis = new RedisChainCompositionIT.Recording(
        RedisEngine.builder().uri(args[0]).buildDeferred());
    RedisChainCompositionIT.Recording local =
        new RedisChainCompositionIT.Recording(Windowpane.localBuilder().buildEngine());
    Map<Long, AtomicLong> windows = new ConcurrentHashMap<>();
    AtomicLong errors = new AtomicLong();
    try (Windowpane wp = Windowpane.using(Failover.chain(redis, local).fleetNodes(2)
        .callTimeout(Duration.ofMillis(500)).probeTimeout(Duration.ofMillis(500))
        .latencyThreshold(Duration.ofSeconds(1)).build())) {
      RateLimiter hot = wp.limiter("two-jvm-hot", Quota.of(Limit.of(limit,
          WindowSpec.panes(Duration.ofSeconds(1), 10))).withLeasing(Leasing.defaults()));
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        threads[t] = new Thread(() -> {
          while (!stop.get() && System.currentTimeMillis() < end) {
            try {
              long before = System.currentTimeMillis();
              boolean allowed = hot.tryAcquire("k").allowed();
              long after = System.currentTimeMillis();
              if (decided.incrementAndGet() == 200) {
                System.out.println("ready");
                System.out.flush();
              }
              if (allowed && before / 1_000 == after / 1_000) {
                windows.computeIfAbsent(before / 1_000, w -> new AtomicLong()).incrementAndGet();
              }
            } catch (RuntimeException e) {
              errors.incrementAndGet();
            }
          }
        });
        threads[t].start();
      }
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      for (Map.Entry<Long, AtomicLong> w : new TreeMap<>(windows).entrySet()) {
        System.out.println("window " + w.getKey() + " " + w.getValue().get());
      }
      System.out.println("errors " + errors.get());
      System.out.println("wrong " + (redis.wrongReleases.size() + local.wrongReleases.size()));
      System.out.println("leases " + hot.leaseStats().orElseThrow().leases());
    }
  }
}
