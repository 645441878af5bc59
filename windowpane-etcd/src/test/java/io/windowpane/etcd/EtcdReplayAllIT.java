package io.windowpane.etcd;

import static io.windowpane.testkit.replay.ReplayBatches.KEYS;
import static io.windowpane.testkit.replay.ReplayBatches.await;
import static io.windowpane.testkit.replay.ReplayBatches.batches;
import static io.windowpane.testkit.replay.ReplayBatches.counts;
import static io.windowpane.testkit.replay.ReplayBatches.mixed;
import static io.windowpane.testkit.replay.ReplayBatches.oneByOne;
import static io.windowpane.testkit.replay.ReplayBatches.quota;
import static io.windowpane.testkit.replay.ReplayBatches.summaries;
import static io.windowpane.testkit.replay.ReplayBatches.withValues;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.CapacityExceededException;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import io.windowpane.testkit.replay.ReplayBatches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code replayAllAsync} on a real etcd: a chunk of batches over many keys is one write
 * transaction (after one read), and records exactly what the same batches replayed one by one
 * record, on panes, weighted and log counters, a multi-limit quota, histogram and exact
 * statistics, now and as the clock moves on. Each store is compared with a twin store (another
 * name) fed the same batches one by one. The same chunk sent again changes nothing and writes
 * nothing; several batches of one key fold in order; a chunk over etcd's default
 * {@code --max-txn-ops} (128) or the engine's {@code maxTxnOps} is split; a batch an exact window
 * refuses fails alone; a malformed id fails the stage before any I/O; and live adds from this
 * process and another one on the same keys, while chunks land, leave exact totals.
 */
@ExtendWith(EtcdServerExtension.class)
class EtcdReplayAllIT {

  private static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  private final EtcdServer etcd;
  private final long base = Math.floorDiv(ConformanceBase.REALISTIC, 60_000) * 60_000 + 60_000;
  private final ManualClock clock = ManualClock.at(base + 9_500);
  private final List<EtcdEngine> engines = new ArrayList<>();
  private EtcdEngine engine;
  private String prefix;
  private int names;

  EtcdReplayAllIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  @BeforeEach
  void open() {
    engine = open(TestEngines.builder(List.of(etcd.endpoint()), clock));
    prefix = "replayall-" + UUID.randomUUID().toString().substring(0, 8) + "-";
  }

  private EtcdEngine open(EtcdEngine.Builder builder) {
    EtcdEngine e = builder.build();
    engines.add(e);
    return e;
  }

  @AfterEach
  void close() {
    engines.forEach(EtcdEngine::close);
  }

  private String name() {
    return prefix + names++;
  }

  /**
   * Each key's answer to an acquire of one permit. It records when allowed, so twins are
   * always asked alike.
   */
  private static List<String> decisions(LimiterStore store) {
    return ReplayBatches.decisions(k -> store.tryAcquire(k, 1));
  }

  /** Write transactions {@code send} cost the engine. */
  private long transactions(EtcdEngine e, ThrowingRunnable send) throws Exception {
    long before = e.metrics().transactions();
    send.run();
    return e.metrics().transactions() - before;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void chunk_isOneTransaction_andRecordsWhatOneByOneRecords_inEveryStore() throws Exception {
    List<CounterStore[]> counters = new ArrayList<>();
    for (WindowSpec spec : List.of(WindowSpec.panes(TEN_SECONDS, 10),
        WindowSpec.weighted(TEN_SECONDS), WindowSpec.log(TEN_SECONDS))) {
      CounterStore[] pair = {engine.counterStore(name(), spec),
          engine.counterStore(name(), spec)};
      oneByOne(pair[0], batches(base, "b"));
      assertThat(transactions(engine, () -> await(pair[1].replayAllAsync(batches(base, "b")))))
          .as(spec + ": 65 batches over 20 keys").isEqualTo(1);
      assertThat(counts(pair[1])).as(spec.toString()).isEqualTo(counts(pair[0]))
          .anySatisfy(n -> assertThat(n).isGreaterThan(5));
      List<Long> before = counts(pair[1]);
      assertThat(transactions(engine, () -> await(pair[1].replayAllAsync(batches(base, "b")))))
          .as(spec + ": the same chunk again writes nothing").isZero();
      assertThat(counts(pair[1])).as(spec + ": the same chunk again").isEqualTo(before);
      oneByOne(pair[0], mixed(base));
      await(pair[1].replayAllAsync(mixed(base)));
      assertThat(counts(pair[1])).as(spec + ": mixed").isEqualTo(counts(pair[0]))
          .isNotEqualTo(before);
      counters.add(pair);
    }

    LimiterStore one = engine.limiterStore(name(), quota());
    LimiterStore all = engine.limiterStore(name(), quota());
    oneByOne(one, batches(base, "b"));
    assertThat(transactions(engine, () -> await(all.replayAllAsync(batches(base, "b")))))
        .isEqualTo(1);
    assertThat(decisions(all)).isEqualTo(decisions(one))
        .anySatisfy(d -> assertThat(d).startsWith("false/"));
    await(all.replayAllAsync(batches(base, "b")));
    assertThat(decisions(all)).as("the same chunk again").isEqualTo(decisions(one));
    oneByOne(one, mixed(base));
    await(all.replayAllAsync(mixed(base)));
    assertThat(decisions(all)).as("mixed").isEqualTo(decisions(one));

    List<StatsStore[]> stats = new ArrayList<>();
    for (StatsSpec spec : new StatsSpec[] {StatsSpec.histogram(TEN_SECONDS, 10),
        StatsSpec.exact(TEN_SECONDS)}) {
      StatsStore[] pair = {engine.statsStore(name(), spec), engine.statsStore(name(), spec)};
      oneByOne(pair[0], withValues(batches(base, "b")));
      assertThat(transactions(engine,
          () -> await(pair[1].replayAllAsync(withValues(batches(base, "b")))))).isEqualTo(1);
      assertThat(summaries(pair[1])).as(spec.toString()).isEqualTo(summaries(pair[0]))
          .anySatisfy(d -> assertThat(d).isNotEqualTo("empty"));
      List<String> held = summaries(pair[1]);
      await(pair[1].replayAllAsync(withValues(batches(base, "b"))));
      assertThat(summaries(pair[1])).as(spec + ": the same chunk again").isEqualTo(held);
      oneByOne(pair[0], withValues(mixed(base)));
      await(pair[1].replayAllAsync(withValues(mixed(base))));
      assertThat(summaries(pair[1])).as(spec + ": mixed").isEqualTo(summaries(pair[0]));
      stats.add(pair);
    }

    for (long later : new long[] {base + 10_000, base + 13_400, base + 19_000, base + 25_000}) {
      clock.set(later); // the replayed events leave with their own times
      for (CounterStore[] pair : counters) {
        assertThat(counts(pair[1])).as("at base + " + (later - base))
            .isEqualTo(counts(pair[0]));
      }
      assertThat(decisions(all)).as("at base + " + (later - base)).isEqualTo(decisions(one));
      for (StatsStore[] pair : stats) {
        assertThat(summaries(pair[1])).as("at base + " + (later - base))
            .isEqualTo(summaries(pair[0]));
      }
    }
  }

  @Test
  void severalBatchesOfOneKey_foldInCallOrder_inOneTransaction() throws Exception {
    Random random = new Random(7);
    List<ReplayBatch> batches = new ArrayList<>();
    for (int i = 0; i < 60; i++) { // back and forth over the window, some too old
      long at = base + 9_500 - random.nextInt(12_000);
      batches.add(new ReplayBatch(i % 6 == 5 ? "other" : "hot", 1 + random.nextInt(4), null, at,
          "f" + i));
    }
    batches.add(batches.get(3)); // a repeated id within the chunk counts once
    batches.add(new ReplayBatch("hot", 9, null, base + 9_000, "f3"));
    for (WindowSpec spec : List.of(WindowSpec.panes(TEN_SECONDS, 10),
        WindowSpec.weighted(TEN_SECONDS), WindowSpec.log(TEN_SECONDS))) {
      CounterStore one = engine.counterStore(name(), spec);
      CounterStore all = engine.counterStore(name(), spec);
      oneByOne(one, batches);
      assertThat(transactions(engine, () -> await(all.replayAllAsync(batches))))
          .as(spec.toString()).isEqualTo(1);
      for (long later : new long[] {0, 1_000, 4_321, 9_000}) {
        clock.set(base + 9_500 + later);
        assertThat(List.of(all.count("hot"), all.count("other"))).as(spec + " + " + later)
            .isEqualTo(List.of(one.count("hot"), one.count("other")));
      }
      clock.set(base + 9_500);
      assertThat(all.count("hot")).as(spec.toString()).isPositive();
    }
  }

  @Test
  void chunkOverEtcdsDefaultMaxTxnOps_isSplit_andRecordsWhatOneByOneRecords() throws Exception {
    List<ReplayBatch> batches = new ArrayList<>();
    for (int i = 0; i < 300; i++) { // 200 keys: one transaction would need 200 compares
      batches.add(new ReplayBatch("k" + (i % 200), 1 + i % 3, null, base + 9_000 - 10 * i,
          "w" + i));
    }
    WindowSpec spec = WindowSpec.panes(TEN_SECONDS, 10);
    CounterStore one = engine.counterStore(name(), spec);
    CounterStore all = engine.counterStore(name(), spec);
    oneByOne(one, batches);
    assertThat(transactions(engine, () -> await(all.replayAllAsync(batches))))
        .as("128 keys, then 72").isEqualTo(2);
    assertThat(counts(all, 200)).isEqualTo(counts(one, 200));

    EtcdEngine small = open(TestEngines.builder(List.of(etcd.endpoint()), clock).maxTxnOps(8));
    CounterStore eight = small.counterStore(name(), spec);
    assertThat(transactions(small, () -> await(eight.replayAllAsync(batches(base, "b")))))
        .as("20 keys, 8 a transaction").isEqualTo(3);
    CounterStore twin = engine.counterStore(name(), spec);
    oneByOne(twin, batches(base, "b"));
    assertThat(counts(eight, KEYS)).isEqualTo(counts(twin, KEYS));
  }

  @Test
  void batchAnExactWindowRefuses_failsAlone_andTheOthersLand() throws Exception {
    StatsStore st = engine.statsStore(name(), StatsSpec.exact(TEN_SECONDS).withMaxValues(3));
    List<ReplayBatch> chunk = List.of(
        new ReplayBatch("k0", 2, new double[] {1, 2}, base + 9_000, "x1"),
        new ReplayBatch("k0", 2, new double[] {3, 4}, base + 9_100, "x2"), // 4 > 3: refused
        new ReplayBatch("k0", 1, new double[] {5}, base + 9_200, "x3"),
        new ReplayBatch("k1", 1, new double[] {6}, base + 9_000, "x4"));
    assertThat(st.replayAllAsync(chunk).toCompletableFuture())
        .failsWithin(Duration.ofSeconds(30)).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(CapacityExceededException.class);
    assertThat(st.summary("k0").count()).isEqualTo(3);
    assertThat(st.summary("k0").sum()).isEqualTo(8);
    assertThat(st.summary("k1").count()).isEqualTo(1);
    await(st.replayAllAsync(List.of(chunk.get(0), chunk.get(2), chunk.get(3))));
    assertThat(st.summary("k0").count()).as("the landed batches again").isEqualTo(3);
  }

  @Test
  void malformedId_failsTheStageBeforeAnyIo_andRecordsNothing() {
    CounterStore counter = engine.counterStore(name(), WindowSpec.panes(TEN_SECONDS, 10));
    LimiterStore limiter = engine.limiterStore(name(), quota());
    StatsStore stats = engine.statsStore(name(), StatsSpec.histogram(TEN_SECONDS, 10));
    for (String bad : new String[] {"", "a b", "x/y", "a".repeat(65), null}) {
      List<ReplayBatch> chunk = List.of(new ReplayBatch("k0", 1, new double[] {1}, base, "good"),
          new ReplayBatch("k1", 1, new double[] {1}, base, bad));
      for (CompletionStage<Void> stage : List.of(counter.replayAllAsync(chunk),
          limiter.replayAllAsync(chunk), stats.replayAllAsync(chunk),
          counter.replayAsync("k1", 1, base, bad))) {
        assertThat(stage.toCompletableFuture()).as(String.valueOf(bad))
            .failsWithin(Duration.ofSeconds(1)).withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(IllegalArgumentException.class)
            .withMessageContaining("replayId");
      }
    }
    assertThat(counter.holdsState("k0")).as("the good batch was not sent").isFalse();
    assertThat(stats.summary("k0").isEmpty()).isTrue();
    assertThat(limiter.tryAcquire("k0", 1).remaining()).isEqualTo(9);
  }

  @Test
  void liveAddsFromThisAndAnotherProcess_whileChunksLandOnTheSameKeys_exactTotals()
      throws Exception {
    WindowSpec spec = WindowSpec.panes(Duration.ofSeconds(60), 60);
    Quota unlimited = Quota.of(Limit.of(1_000_000, spec));
    String counterName = name();
    String limiterName = name();
    EtcdEngine other = open(TestEngines.builder(List.of(etcd.endpoint()), clock));
    CounterStore[] counters = {engine.counterStore(counterName, spec),
        other.counterStore(counterName, spec)};
    LimiterStore[] limiters = {engine.limiterStore(limiterName, unlimited),
        other.limiterStore(limiterName, unlimited)};
    int keys = 6;
    LongAdder[] events = new LongAdder[keys];
    for (int k = 0; k < keys; k++) {
      events[k] = new LongAdder();
    }
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) { // two threads in this engine, two in the other
      int me = t;
      threads.add(new Thread(() -> {
        Random r = new Random(me);
        while (!stop.get()) {
          int k = r.nextInt(keys);
          try {
            counters[me % 2].add("k" + k, 1);
            if (!limiters[me % 2].tryAcquire("k" + k, 1).allowed()) {
              throw new AssertionError("denied under a limit of 1,000,000");
            }
            events[k].increment();
          } catch (RuntimeException | AssertionError e) {
            errors.add(e);
          }
        }
      }, "live-" + t));
    }
    threads.forEach(Thread::start);
    Random random = new Random(11);
    long chunkTransactions = 0;
    int chunks = 30;
    try {
      for (int c = 0; c < chunks; c++) {
        List<ReplayBatch> chunk = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
          int k = random.nextInt(keys);
          chunk.add(new ReplayBatch("k" + k, 1 + random.nextInt(3), null,
              clock.millis() - random.nextInt(20_000), "live-" + c + "-" + i));
        }
        CompletableFuture<Void> counted = counters[0].replayAllAsync(chunk).toCompletableFuture();
        CompletableFuture<Void> taken = limiters[0].replayAllAsync(chunk).toCompletableFuture();
        CompletableFuture<Void> again = counters[0].replayAllAsync(chunk).toCompletableFuture();
        CompletableFuture.allOf(counted, taken, again).get(30, TimeUnit.SECONDS);
        for (ReplayBatch b : chunk) {
          events[Integer.parseInt(b.key().substring(1))].add(b.count());
        }
        clock.advance(random.nextInt(200)); // at most 6 s in all: everything stays in the window
      }
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
    }
    System.out.println("live adds and replayAll on the same keys: " + engine.metrics()
        + "; the other process: " + other.metrics());
    assertThat(errors).as("failed live calls").isEmpty();
    for (int k = 0; k < keys; k++) {
      assertThat(counters[1].count("k" + k)).as("k" + k + " in the counter")
          .isEqualTo(events[k].sum());
      assertThat(1_000_000 - limiters[1].tryAcquire("k" + k, 1).remaining() - 1)
          .as("k" + k + " permits taken").isEqualTo(events[k].sum());
    }
    assertThat(engine.metrics().conflicts() + other.metrics().conflicts())
        .as("the processes did race on the keys").isPositive();
  }
}
