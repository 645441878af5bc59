package io.windowpane.internal.buffering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.BufferStats;
import io.windowpane.Buffering;
import io.windowpane.ManualClock;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A buffering counter over the local engine, with a manual clock for the engine's time and the
 * staleness deadlines and no background flusher (the tests run the flush rounds): a fresh view
 * answers with no engine call, a stale one goes to the engine once, threads' totals are exact
 * after a flush, one node's answers equal an unbuffered counter's, a failed flush loses its
 * events (counted) and the next add sees the failure, idle keys are dropped.
 */
class BufferingCounterTest {

  private static final long T0 = 1_700_000_000_000L;
  private static final long S = 1_000;
  private static final WindowSpec HOUR = WindowSpec.panes(Duration.ofHours(1), 60);

  private final ManualClock clock = ManualClock.at(T0);
  private final Engine engine = Windowpane.localBuilder().clock(clock).buildEngine();
  private final CountingCounterStore counted =
      new CountingCounterStore(engine.counterStore("c", HOUR));
  private final BufferingCounterStore store = new BufferingCounterStore("c", counted,
      Buffering.of(Duration.ofMillis(S)).clock(clock), null);

  @Test
  void freshView_answersWithNoEngineCall_staleViewGoesToTheEngineOnce() {
    assertThat(store.add("k", 1)).isEqualTo(1); // no view yet: synchronous
    assertThat(counted.calls.get()).isEqualTo(1);
    for (int i = 2; i <= 10; i++) {
      assertThat(store.add("k", 1)).isEqualTo(i);
    }
    store.record("k", 5);
    assertThat(store.count("k")).isEqualTo(15);
    assertThat(store.countAsync("k").toCompletableFuture().join()).isEqualTo(15);
    assertThat(counted.calls.get()).isEqualTo(1);
    assertThat(counted.real.count("k")).isEqualTo(1); // the engine has only the first

    clock.advance(S); // still fresh: at most S old
    assertThat(store.addAsync("k", 1).toCompletableFuture().join()).isEqualTo(16);
    assertThat(counted.calls.get()).isEqualTo(1);

    clock.advance(1); // stale: the add carries every pending event to the engine
    assertThat(store.add("k", 2)).isEqualTo(18);
    assertThat(counted.calls.get()).isEqualTo(2);
    assertThat(counted.real.count("k")).isEqualTo(18);

    BufferStats stats = store.stats();
    assertThat(stats.engineAnswers()).isEqualTo(2);
    assertThat(stats.localAnswers()).isEqualTo(13); // 9 adds, 1 record, 2 counts, 1 async add
    assertThat(stats.flushes()).isEqualTo(2);
    assertThat(stats.flushedEvents()).isEqualTo(18);
    assertThat(stats.lostEvents()).isZero();
  }

  @Test
  void flushRound_keepsAHotKeysViewFresh() {
    store.add("k", 1);
    for (int round = 0; round < 20; round++) {
      clock.advance(S / 2);
      store.add("k", 1);
      store.flushRound(); // what the flusher does every S/2
    }
    assertThat(counted.calls.get()).isEqualTo(1 + 20); // one per round, no synchronous add
    assertThat(store.stats().engineAnswers()).isEqualTo(1);
    assertThat(counted.real.count("k")).isEqualTo(21);
  }

  @Test
  void threads_exactTotalsAfterFlush() throws Exception {
    int threads = 8;
    int adds = 5_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < adds; i++) {
            if (i % 3 == 0) {
              store.record("hot", 1);
            } else if (i % 3 == 1) {
              store.add("hot", 1);
            } else {
              store.addAsync("hot", 1).toCompletableFuture().join();
            }
            if (id == 0 && i % 50 == 0) {
              clock.advance(S / 3); // views go stale now and then: synchronous adds race
            }
            if (id == 1 && i % 70 == 0) {
              store.flushRound();
            }
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    store.flush();
    assertThat(counted.real.count("hot")).isEqualTo((long) threads * adds);
    assertThat(store.stats().flushedEvents()).isEqualTo((long) threads * adds);
    assertThat(store.count("hot")).isEqualTo((long) threads * adds);
  }

  @Test
  void seededRandom_oneNodeAnswersAsAnUnbufferedCounter() {
    CounterStore plain = engine.counterStore("plain", HOUR);
    for (long seed = 1; seed <= 5; seed++) {
      Random random = new Random(seed);
      String prefix = "s" + seed + ":";
      for (int op = 0; op < 2_000; op++) {
        String key = prefix + random.nextInt(4);
        int what = random.nextInt(10);
        if (what < 4) {
          long n = 1 + random.nextInt(5);
          assertThat(store.add(key, n)).as("seed %d op %d", seed, op).isEqualTo(plain.add(key, n));
        } else if (what < 6) {
          long n = 1 + random.nextInt(5);
          store.record(key, n);
          plain.add(key, n);
        } else if (what < 8) {
          assertThat(store.count(key)).as("seed %d op %d", seed, op).isEqualTo(plain.count(key));
        } else if (what == 8) {
          clock.advance(random.nextInt((int) S));
        } else {
          store.flushRound();
          for (int k = 0; k < 4; k++) {
            assertThat(counted.real.count(prefix + k)).as("seed %d op %d", seed, op)
                .isEqualTo(plain.count(prefix + k));
          }
        }
      }
    }
    assertThat(store.stats().lostEvents()).isZero();
  }

  @Test
  void failedFlush_losesItsEventsCounted_andTheNextAddThrows() {
    store.add("k", 1);
    store.add("k", 3);
    store.record("k", 2);
    counted.down.set(true);
    store.flushRound();
    assertThat(store.stats().lostEvents()).isEqualTo(5);
    assertThatThrownBy(() -> store.add("k", 7)).isInstanceOf(WindowpaneException.class);
    assertThat(store.stats().lostEvents()).isEqualTo(5); // the caller was told about its 7
    counted.down.set(false);
    assertThat(store.add("k", 1)).isEqualTo(2); // undercount, never double count
    assertThat(counted.real.count("k")).isEqualTo(2);
  }

  @Test
  void failedSynchronousAdd_losesOnlyTheBufferedEvents() {
    store.add("k", 1);
    store.record("k", 4);
    clock.advance(S + 1);
    counted.down.set(true);
    assertThatThrownBy(() -> store.addAsync("k", 2).toCompletableFuture().join())
        .hasCauseInstanceOf(WindowpaneException.class);
    assertThat(store.stats().lostEvents()).isEqualTo(4);
  }

  @Test
  void idleKeys_areDropped_theirEventsSentFirst() {
    for (int i = 0; i < 100; i++) {
      store.add("k" + i, 1);
      store.record("k" + i, 1);
    }
    assertThat(store.keys()).isEqualTo(100);
    store.flushRound();
    assertThat(store.keys()).isEqualTo(100); // used just now
    clock.advance(S + 1);
    store.flushRound();
    assertThat(store.keys()).isZero();
    for (int i = 0; i < 100; i++) {
      assertThat(counted.real.count("k" + i)).isEqualTo(2);
    }
    assertThat(store.add("k0", 1)).isEqualTo(3);
  }
}
