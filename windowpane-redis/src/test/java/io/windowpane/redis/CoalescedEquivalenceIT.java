package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.StatsSpec;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A coalesced stream of decisions over many keys answers exactly what the same calls answer one
 * by one.
 *
 * <p>Each of 8 threads owns 16 keys and makes a seeded random sequence of calls on them (limits
 * of two windows with 1 to 3 permits, a weighted limit, counter adds of 1 to 5, statistics
 * records), so the order of calls on each key is fixed while the threads' calls meet in the
 * engine's batches. The clock stands still within a phase and jumps by a seeded amount between
 * phases (some jumps move the head a pane or two, some leave the window behind). Afterwards the
 * same per-thread sequences run one at a time on an engine with coalescing off, under other
 * names, and every answer must be equal: allowed, remaining, the denying limit, retry-after,
 * every count and every summary.
 */
@ExtendWith(RedisServerExtension.class)
class CoalescedEquivalenceIT {

  private static final int THREADS = 8;
  private static final int KEYS = 16;
  private static final int CALLS = 120; // per thread per phase
  private static final long[] STEPS = {0, 40, 100, 350, 1_000, 2_600};

  private final RedisServer redis;

  CoalescedEquivalenceIT(RedisServer redis) {
    this.redis = redis;
  }

  private Windowpane engine(ManualClock clock, boolean coalescing) {
    return Windowpane.using(RedisEngine.builder().uri(redis.uri()).clock(clock)
        .expiryGrace(TestEngines.TEST_GRACE).coalescing(coalescing).build());
  }

  /** The windows of one run, under names of their own. */
  private record Windows(RateLimiter twoLimits, RateLimiter weighted, WindowCounter counter,
      WindowStats stats) {
    static Windows open(Windowpane wp, String prefix) {
      return new Windows(
          wp.limiter(prefix + "-two", Quota.of(
              Limit.of(12, WindowSpec.panes(Duration.ofSeconds(1), 10)),
              Limit.of(40, WindowSpec.panes(Duration.ofSeconds(5), 5)))),
          wp.limiter(prefix + "-wt", Limit.of(9, WindowSpec.weighted(Duration.ofSeconds(1)))),
          wp.counter(prefix + "-c", WindowSpec.panes(Duration.ofSeconds(2), 4)),
          wp.stats(prefix + "-s", StatsSpec.histogram(Duration.ofSeconds(2), 4)));
    }

    /** Call {@code op} of the sequence; returns its answer as a comparable string. */
    String call(int op, String key, int amount) {
      return switch (op) {
        case 0 -> show(twoLimits.tryAcquire(key, amount));
        case 1 -> show(weighted.tryAcquire(key, amount));
        case 2 -> "add=" + counter.add(key, amount);
        case 3 -> {
          stats.record(key, amount * 1.5);
          yield "record";
        }
        default -> {
          var s = stats.summary(key);
          yield "summary=" + s.count() + "/" + s.sum() + "/" + s.min() + "/" + s.max();
        }
      };
    }

    private static String show(Decision d) {
      return d.allowed() + "/" + d.remaining() + "/" + d.deniedBy().map(Limit::toString).orElse("-")
          + "/" + d.retryAfterMillis();
    }
  }

  /** The calls thread {@code t} makes in phase {@code p}: op, key index, amount. */
  private static int[][] sequence(long seed, int t, int p) {
    SplittableRandom random = new SplittableRandom(seed * 1_000_003L + t * 101L + p);
    int[][] calls = new int[CALLS][];
    for (int i = 0; i < CALLS; i++) {
      int op = random.nextInt(10);
      op = op < 4 ? 0 : op < 6 ? 1 : op < 8 ? 2 : op < 9 ? 3 : 4;
      int amount = op <= 1 ? 1 + random.nextInt(3) : 1 + random.nextInt(5);
      calls[i] = new int[] {op, random.nextInt(KEYS), amount};
    }
    return calls;
  }

  @Test
  void aCoalescedStream_answersExactlyAsTheCallsOneByOne() throws Exception {
    long seed = 20261127L;
    SplittableRandom steps = new SplittableRandom(seed);
    long[] jumps = new long[5];
    for (int p = 1; p < jumps.length; p++) {
      jumps[p] = STEPS[steps.nextInt(STEPS.length)];
    }
    long start = ConformanceBase.REALISTIC + 7_003;

    List<List<String>> coalesced = new ArrayList<>();
    long fcalls;
    long calls = 0;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    ManualClock clock = ManualClock.at(start);
    try (Windowpane wp = engine(clock, true); RespClient admin = redis.client()) {
      Windows windows = Windows.open(wp, "on");
      for (int t = 0; t < THREADS; t++) {
        coalesced.add(new ArrayList<>());
      }
      long before = GroupEquivalenceIT.fcalls(admin);
      for (int p = 0; p < jumps.length; p++) {
        clock.advance(jumps[p]);
        CyclicBarrier go = new CyclicBarrier(THREADS);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          int[][] sequence = sequence(seed, t, p);
          done.add(pool.submit(() -> {
            go.await();
            for (int[] c : sequence) {
              coalesced.get(thread).add(windows.call(c[0], "t" + thread + ":k" + c[1], c[2]));
            }
            return null;
          }));
          calls += sequence.length;
        }
        for (Future<?> f : done) {
          f.get(2, TimeUnit.MINUTES);
        }
      }
      fcalls = GroupEquivalenceIT.fcalls(admin) - before;
    } finally {
      pool.shutdownNow();
    }

    ManualClock alone = ManualClock.at(start);
    try (Windowpane wp = engine(alone, false)) {
      Windows windows = Windows.open(wp, "off");
      List<List<String>> oneByOne = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        oneByOne.add(new ArrayList<>());
      }
      for (int p = 0; p < jumps.length; p++) {
        alone.advance(jumps[p]);
        for (int t = 0; t < THREADS; t++) {
          for (int[] c : sequence(seed, t, p)) {
            oneByOne.get(t).add(windows.call(c[0], "t" + t + ":k" + c[1], c[2]));
          }
        }
      }
      for (int t = 0; t < THREADS; t++) {
        assertThat(coalesced.get(t)).as("thread %d's answers (seed %d)", t, seed)
            .containsExactlyElementsOf(oneByOne.get(t));
      }
    }
    assertThat(coalesced.stream().flatMap(List::stream).filter(a -> a.startsWith("false")))
        .as("some calls were denied, so the limits were decided at their edge").isNotEmpty();
    assertThat(fcalls).as("server calls for %d calls: some travelled together", calls)
        .isLessThan(calls);
  }
}
