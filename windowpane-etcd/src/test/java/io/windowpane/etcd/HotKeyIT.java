package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.Together;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One hot key: the callers of one process coalesce into few transactions, several processes
 * (engines) contending on it keep exact totals without giving up, and an exhausted retry budget
 * fails clearly and records nothing.
 */
@ExtendWith(EtcdServerExtension.class)
class HotKeyIT {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final EtcdServer etcd;

  HotKeyIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  private EtcdEngine engine(ManualClock clock) {
    return TestEngines.builder(List.of(etcd.endpoint()), clock).build();
  }

  private static String name() {
    return "hot-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void oneProcess_manyThreadsOnOneKey_coalesceIntoFewTransactionsWithExactTotals()
      throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    EtcdEngine engine = engine(clock);
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try (Windowpane wp = Windowpane.using(engine)) {
      WindowCounter counter = wp.counter(name(), WindowSpec.panes(MINUTE, 60));
      long added = Together.sum(pool, 16, Duration.ofSeconds(120), () -> {
        long sum = 0;
        for (int i = 0; i < 300; i++) {
          counter.add("hot", 1 + i % 3);
          sum += 1 + i % 3;
        }
        return sum;
      });
      assertThat(counter.count("hot")).isEqualTo(added);
      EtcdMetrics m = engine.metrics();
      assertThat(m.exhausted()).isZero();
      assertThat(m.conflicts()).as("one process never conflicts with itself").isZero();
      assertThat(m.transactions()).as("%s: 4,800 adds coalesced", m).isLessThan(4_800 / 3);
      System.out.println("one process, one hot key: " + m);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void fourProcesses_oneHotKey_allowExactlyTheLimitWithNoGiveUps() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 11);
    String name = name();
    List<EtcdEngine> engines = new ArrayList<>();
    List<Windowpane> wps = new ArrayList<>();
    List<RateLimiter> limiters = new ArrayList<>();
    List<WindowCounter> counters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      EtcdEngine e = engine(clock);
      engines.add(e);
      Windowpane wp = Windowpane.using(e);
      wps.add(wp);
      limiters.add(wp.limiter(name, Limit.of(2_000, WindowSpec.log(MINUTE))));
      counters.add(wp.counter(name, WindowSpec.weighted(MINUTE)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      // 16 callers (4 per engine) ask 3,200 permits of a limit of 2,000, and count each try
      long allowed = Together.sum(pool, 16, Duration.ofSeconds(180), () -> {
        int me = (int) (Thread.currentThread().getId() % 4);
        long sum = 0;
        for (int i = 0; i < 200; i++) {
          counters.get(me).add("hot");
          if (limiters.get(me).tryConsume("hot", 1)) {
            sum++;
          }
        }
        return sum;
      });
      assertThat(allowed).isEqualTo(2_000);
      assertThat(counters.get(0).count("hot")).isEqualTo(3_200);
      long conflicts = 0;
      for (EtcdEngine e : engines) {
        assertThat(e.metrics().exhausted()).as("%s", e.metrics()).isZero();
        conflicts += e.metrics().conflicts();
      }
      assertThat(conflicts).as("four processes did contend").isPositive();
      System.out.println("four processes, one hot key: " + engines.stream()
          .map(e -> e.metrics().toString()).collect(java.util.stream.Collectors.joining(", ")));
    } finally {
      pool.shutdownNow();
      wps.forEach(Windowpane::close);
    }
  }

  @Test
  void retryBudget_whenExhausted_failsNamingTheBudgetAndRecordsNothing() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    String name = name();
    try (Windowpane strict = Windowpane.using(TestEngines.builder(List.of(etcd.endpoint()),
            clock).conflictRetries(0).build());
        Windowpane rival = Windowpane.using(engine(clock))) {
      WindowCounter mine = strict.counter(name, WindowSpec.log(MINUTE));
      WindowCounter theirs = rival.counter(name, WindowSpec.log(MINUTE));
      assertThat(mine.add("k")).isEqualTo(1); // caches the key's value and revision
      assertThat(theirs.add("k")).isEqualTo(2); // the cached revision is now stale
      assertThatThrownBy(() -> mine.add("k", 5)).isInstanceOf(WindowpaneException.class)
          .hasMessageContaining("retry budget exhausted for key 'k'")
          .hasMessageContaining("conflictRetries = 0");
      assertThat(theirs.count("k")).as("the failed add recorded nothing").isEqualTo(2);
      assertThat(mine.add("k")).as("the failure dropped the stale cache").isEqualTo(3);
    }
  }
}
