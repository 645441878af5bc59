package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watch-fed count cache over an in-memory seam whose watches a test can break. */
class CountCacheTest {

  private final MemorySeam seam = new MemorySeam();
  private final ManualClock clock = ManualClock.at(1_700_000_000_000L);
  private final Context ctx = new Context(seam, clock, "t", 5_000, 60_000, 64, 2, 200,
      1_500_000, 60_000);
  private final CounterStore counter = new EtcdStores(ctx).counterStore("c",
      WindowSpec.log(Duration.ofMinutes(1)));

  @AfterEach
  void close() {
    ctx.close();
  }

  private long operations() {
    return ctx.counts()[0];
  }

  /** Reads until the cache answers (it syncs asynchronously after the first read). */
  private void warmUp(String key) {
    for (int i = 0; i < 1_000; i++) {
      long before = operations();
      counter.count(key);
      if (operations() == before) {
        return;
      }
    }
    throw new AssertionError("the cache never answered");
  }

  @Test
  void count_onceWarm_isAnsweredLocallyAndSeesOwnWrites() {
    counter.add("k", 3);
    warmUp("k");
    long before = operations();
    assertThat(counter.count("k")).isEqualTo(3);
    assertThat(counter.add("k", 2)).isEqualTo(5);
    assertThat(counter.count("k")).isEqualTo(5);
    assertThat(operations() - before).as("only the add went to etcd").isEqualTo(1);
  }

  @Test
  void lostWatch_dropsEveryEntryAndResyncsFromEtcd() {
    counter.add("k", 3);
    warmUp("k");
    byte[] stale = seam.value("t/c/c/" + Shapes.of(WindowSpec.log(Duration.ofMinutes(1))) + "/k");
    // another writer's change that the watch never delivers, then the watch is lost
    Doc doc = new Doc(Windows.forCounter(WindowSpec.log(Duration.ofMinutes(1))), 60_001)
        .load(stale);
    ((Windows) doc.body).windows[0].add(clock.millis(), 10);
    String key = "t/c/c/" + Shapes.of(WindowSpec.log(Duration.ofMinutes(1))) + "/k";
    seam.putSilently(key, doc.encode(7));
    assertThat(counter.count("k")).as("missed event: still the old value").isEqualTo(3);
    seam.loseWatches();
    assertThat(counter.count("k")).as("after the loss, from etcd").isEqualTo(13);
    assertThat(seam.watchesStarted).as("a new watch").isEqualTo(2);
    warmUp("k");
    assertThat(counter.count("k")).isEqualTo(13);
  }
}
