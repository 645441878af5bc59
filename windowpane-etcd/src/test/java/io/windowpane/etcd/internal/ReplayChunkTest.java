package io.windowpane.etcd.internal;

import static io.windowpane.testkit.replay.ReplayBatches.await;
import static io.windowpane.testkit.replay.ReplayBatches.batches;
import static io.windowpane.testkit.replay.ReplayBatches.counts;
import static io.windowpane.testkit.replay.ReplayBatches.oneByOne;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplayChunk} in memory ({@link LosingSeam} over a {@link MemorySeam}): a chunk of
 * replays over many keys is one multi-key read and one multi-key write, and records what the
 * same batches replayed one by one record (a twin store of another name); sent again it writes
 * nothing; a lost answer of a write that landed is resolved by the replay ids without a second
 * write; a key another writer moved between the read and the write goes through its lane while
 * the other keys commit together; keys and bytes per transaction stay within maxTxnOps and
 * maxValueBytes.
 */
class ReplayChunkTest {

  private static final long BASE = 1_700_000_000_000L; // a whole 10 s
  private static final WindowSpec PANES = WindowSpec.panes(Duration.ofSeconds(10), 10);

  private final ManualClock clock = ManualClock.at(BASE + 9_500);
  private final LosingSeam seam = new LosingSeam();
  private final List<Context> contexts = new ArrayList<>();

  private Context context(EtcdSeam over, int maxTxnOps, int maxValueBytes) {
    Context ctx = new Context(over, clock, "t", 5_000, 60_000, 64, 2, 200, maxValueBytes, 0,
        maxTxnOps);
    contexts.add(ctx);
    return ctx;
  }

  private Context context() {
    return context(seam, Context.DEFAULT_MAX_TXN_OPS, 1_500_000);
  }

  @AfterEach
  void close() {
    contexts.forEach(Context::close);
  }

  @Test
  void chunk_isOneReadAndOneWrite_recordsWhatOneByOneRecords_andSentAgainWritesNothing()
      throws Exception {
    Context ctx = context();
    CounterStore single = new EtcdCounterStore(ctx, "single", PANES);
    CounterStore chunked = new EtcdCounterStore(ctx, "chunked", PANES);
    oneByOne(single, batches(BASE, "b"));
    await(chunked.replayAllAsync(batches(BASE, "b")));
    assertThat(seam.memory.multiKeyReads).isEqualTo(1);
    assertThat(seam.memory.multiKeyWrites).isEqualTo(1);
    assertThat(counts(chunked)).isEqualTo(counts(single))
        .anySatisfy(n -> assertThat(n).isGreaterThan(5));
    await(chunked.replayAllAsync(batches(BASE, "b")));
    assertThat(seam.memory.multiKeyWrites).as("every id remembered: no write").isEqualTo(1);
    assertThat(counts(chunked)).isEqualTo(counts(single));
  }

  @Test
  void lostAnswerOfAWriteThatLanded_isRetriedFromARead_andTheIdsKeepItOnce() throws Exception {
    Context ctx = context();
    CounterStore single = new EtcdCounterStore(ctx, "single", PANES);
    CounterStore chunked = new EtcdCounterStore(ctx, "chunked", PANES);
    oneByOne(single, batches(BASE, "b"));
    seam.loseAnswers = 1;
    await(chunked.replayAllAsync(batches(BASE, "b")));
    assertThat(seam.loseAnswers).as("the answer was lost").isZero();
    assertThat(seam.memory.multiKeyReads).as("read again after the lost answer").isEqualTo(2);
    assertThat(seam.memory.multiKeyWrites).as("the retry found every id and wrote nothing")
        .isEqualTo(1);
    assertThat(counts(chunked)).isEqualTo(counts(single));
  }

  @Test
  void aKeyAnotherWriterMovedBeforeTheWrite_goesThroughItsLane_andTheRestCommitTogether()
      throws Exception {
    Context ctx = context();
    CounterStore single = new EtcdCounterStore(ctx, "single", PANES);
    CounterStore chunked = new EtcdCounterStore(ctx, "chunked", PANES);
    CounterStore otherProcess = new EtcdCounterStore(
        context(seam.memory, Context.DEFAULT_MAX_TXN_OPS, 1_500_000), "chunked", PANES);
    oneByOne(single, batches(BASE, "b"));
    seam.beforeMultiKeyWrite = () -> otherProcess.add("k3", 7);
    await(chunked.replayAllAsync(batches(BASE, "b")));
    assertThat(seam.memory.multiKeyWrites).as("the lost compare, then the 19 other keys")
        .isEqualTo(2);
    assertThat(ctx.counts()[2]).as("conflicts").isEqualTo(1);
    List<Long> expected = counts(single);
    expected.set(3, expected.get(3) + 7);
    assertThat(counts(chunked)).isEqualTo(expected);
  }

  @Test
  void chunkOverMaxTxnOpsKeys_isReadAndWrittenInGroupsOfMaxTxnOps() throws Exception {
    seam.memory.maxTxnOps = 8;
    Context ctx = context(seam, 8, 1_500_000);
    CounterStore single = new EtcdCounterStore(ctx, "single", PANES);
    CounterStore chunked = new EtcdCounterStore(ctx, "chunked", PANES);
    oneByOne(single, batches(BASE, "b"));
    await(chunked.replayAllAsync(batches(BASE, "b")));
    assertThat(seam.memory.multiKeyReads).as("20 keys: 8 + 8 + 4").isEqualTo(3);
    assertThat(seam.memory.multiKeyWrites).isEqualTo(3);
    assertThat(counts(chunked)).isEqualTo(counts(single));

    CounterStore tooMany = new EtcdCounterStore(context(seam, 128, 1_500_000), "c", PANES);
    assertThat(tooMany.replayAllAsync(batches(BASE, "t")).toCompletableFuture())
        .failsWithin(Duration.ofSeconds(10)).withThrowableOfType(ExecutionException.class)
        .havingCause().isInstanceOf(WindowpaneException.class)
        .withMessageContaining("maxTxnOps = 128");
  }

  @Test
  void writesOverMaxValueBytesInAll_areCutIntoTransactionsOfAtMostMaxValueBytes()
      throws Exception {
    Context ctx = context(seam, Context.DEFAULT_MAX_TXN_OPS, 4_096);
    StatsSpec exact = StatsSpec.exact(Duration.ofSeconds(10));
    StatsStore single = new EtcdStatsStore(ctx, "single", exact);
    StatsStore chunked = new EtcdStatsStore(ctx, "chunked", exact);
    List<ReplayBatch> batches = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      double[] values = new double[10];
      for (int v = 0; v < values.length; v++) {
        values[v] = i * 10 + v + 0.25;
      }
      batches.add(new ReplayBatch("k" + i % 10, 10, values, BASE + 9_000 + i, "x" + i));
    }
    for (ReplayBatch b : batches) {
      await(single.replayAsync(b.key(), b.values(), b.atMillis(), b.replayId()));
    }
    await(chunked.replayAllAsync(batches));
    assertThat(seam.memory.multiKeyWrites).as("10 keys of about 900 bytes each")
        .isGreaterThanOrEqualTo(3);
    assertThat(seam.memory.largestMultiKeyWriteBytes).isBetween(1, 4_096);
    for (int k = 0; k < 10; k++) {
      Summary s = chunked.summary("k" + k);
      Summary t = single.summary("k" + k);
      assertThat(s.count()).isEqualTo(100);
      assertThat(List.of(s.count(), s.sum(), s.min(), s.max(), s.quantile(0.5)))
          .isEqualTo(List.of(t.count(), t.sum(), t.min(), t.max(), t.quantile(0.5)));
    }
  }
}
