package io.windowpane.internal.failover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The journal under concurrent adds and replays: every event is replayed exactly once. */
class JournalTest {

  @Test
  void concurrentAddsAndReplays_loseNothing_andDeliverEachEventOnce() throws Exception {
    Journal.Counters counters = new Journal.Counters();
    Journal journal = new Journal("node", new AtomicLong(), new AtomicLong(), 1_000_000,
        60_000, counters);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong delivered = new AtomicLong();
    Thread drainer = new Thread(() -> {
      while (!stop.get()) {
        for (Journal.Pending p : journal.pendingFor(0, 1_000)) {
          delivered.addAndGet(p.batch().count);
          journal.delivered(p.key(), p.batch(), 0, false);
        }
      }
    });
    drainer.start();
    List<Thread> writers = new ArrayList<>();
    int perThread = 50_000;
    for (int t = 0; t < 4; t++) {
      int me = t;
      writers.add(new Thread(() -> {
        for (int i = 0; i < perThread; i++) {
          journal.add("k" + (i % 3), 1_000 + (i / 100), 1, 1, 1, null);
        }
      }, "writer-" + me));
    }
    writers.forEach(Thread::start);
    for (Thread w : writers) {
      w.join();
    }
    stop.set(true);
    drainer.join();
    for (Journal.Pending p : journal.pendingFor(0, 1_000)) { // what came after the last round
      delivered.addAndGet(p.batch().count);
      journal.delivered(p.key(), p.batch(), 0, false);
    }
    assertThat(delivered.get()).isEqualTo(4L * perThread);
    assertThat(counters.replayed.get()).isEqualTo(4L * perThread);
    assertThat(journal.pendingEvents(0)).isZero();
    assertThat(counters.lost.get()).isZero();
  }

  @Test
  void batchesOfOneKeyAndMillisecond_merge_untilSealed() {
    Journal.Counters counters = new Journal.Counters();
    Journal journal = new Journal("n", new AtomicLong(), new AtomicLong(), 10, 60_000, counters);
    journal.add("k", 5, 1, 1, 2, null);
    journal.add("k", 5, 1, 1, 3, null);
    List<Journal.Pending> first = journal.pendingFor(0, 10);
    assertThat(first).hasSize(1);
    assertThat(first.get(0).batch().count).isEqualTo(5);
    journal.add("k", 5, 1, 1, 1, null); // sealed: a new batch with a new id
    List<Journal.Pending> second = journal.pendingFor(0, 10);
    assertThat(second).hasSize(2);
    assertThat(second.get(1).batch().id).isNotEqualTo(second.get(0).batch().id);
    assertThat(counters.journaled.get()).isEqualTo(2);
  }

  @Test
  void pastTheLimit_eventsAreCountedLost() {
    Journal.Counters counters = new Journal.Counters();
    Journal journal = new Journal("n", new AtomicLong(), new AtomicLong(), 1, 60_000, counters);
    journal.add("a", 1, 1, 1, 4, null);
    journal.add("b", 1, 1, 1, 7, null);
    assertThat(counters.lost.get()).isEqualTo(7);
    assertThat(journal.pendingEvents(0)).isEqualTo(4);
  }
}
