package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConcurrencyConformance;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.CounterConformance;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Counts served from the watch-fed cache on a real etcd: answered locally once warm, never
 * behind this process's own writes, other processes' writes seen within the staleness bound,
 * and the counter parts of the conformance suite still pass with the cache on.
 */
@ExtendWith(EtcdServerExtension.class)
class CachedCountIT {

  private static final Duration STALENESS = Duration.ofMillis(200);

  private final EtcdServer etcd;

  CachedCountIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  private EtcdEngine cached(ManualClock clock) {
    return TestEngines.builder(List.of(etcd.endpoint()), clock).cachedCounts(STALENESS).build();
  }

  /** Reads until a count is answered without a call to etcd; returns the calls it took. */
  private static int warmUp(EtcdEngine engine, WindowCounter counter, String key) {
    for (int i = 1; i <= 2_000; i++) {
      long before = engine.metrics().operations();
      counter.count(key);
      if (engine.metrics().operations() == before) {
        return i;
      }
    }
    throw new AssertionError("the cache never answered: " + engine.metrics());
  }

  @Test
  void count_onceWarm_isLocalAndNeverBehindOwnWrites() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    EtcdEngine engine = cached(clock);
    try (Windowpane wp = Windowpane.using(engine)) {
      WindowCounter counter = wp.counter("cached-" + UUID.randomUUID(), WindowSpec.log(
          Duration.ofMinutes(1)));
      counter.add("k", 3);
      warmUp(engine, counter, "k");
      long before = engine.metrics().operations();
      for (int i = 1; i <= 50; i++) {
        assertThat(counter.add("k")).isEqualTo(3 + i);
        assertThat(counter.count("k")).isEqualTo(3 + i);
        clock.advance(100);
      }
      assertThat(engine.metrics().operations() - before).as("only the adds reached etcd")
          .isEqualTo(50);
    }
  }

  @Test
  void anotherProcessesWrite_isSeenWithinTheStalenessBound() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    String name = "cached-" + UUID.randomUUID();
    EtcdEngine engine = cached(clock);
    try (Windowpane reader = Windowpane.using(engine);
        Windowpane writer = TestEngines.open(List.of(etcd.endpoint()), clock)) {
      WindowCounter mine = reader.counter(name, WindowSpec.panes(Duration.ofMinutes(1), 6));
      WindowCounter theirs = writer.counter(name, WindowSpec.panes(Duration.ofMinutes(1), 6));
      theirs.add("k", 2);
      assertThat(mine.count("k")).isEqualTo(2);
      warmUp(engine, mine, "k");
      long written = theirs.add("k", 5);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      long seen;
      do {
        seen = mine.count("k"); // each read is local or a round trip: no sleeping
        assertThat(seen).isIn(2L, written);
      } while (seen != written && System.nanoTime() - deadline < 0);
      assertThat(seen).isEqualTo(written);
    }
  }

  @Nested
  class Counters extends CounterConformance {
    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return Windowpane.using(cached(clock));
    }
  }

  @Nested
  class Concurrency extends ConcurrencyConformance {
    @Override
    protected int operationsPerPhase() {
      return 150; // counts are exact at any size: every phase still races 8 writers on one key
    }

    @Override
    protected boolean checksLimiters() {
      return false; // the cache serves counters' counts only; EtcdConformanceIT runs these
    }

    @Override
    protected Windowpane newEngine(ManualClock clock) {
      return Windowpane.using(cached(clock));
    }
  }
}
