package io.windowpane.internal.failover;

import io.windowpane.Failover.Health;
import io.windowpane.Summary;
import io.windowpane.TopKey;
import io.windowpane.spi.StatsStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Statistics over a chain: records to the first UP member, summaries from the first readable. */
final class FailoverStatsStore extends MemberStores<StatsStore> implements StatsStore {


  FailoverStatsStore(Chain chain, StatsStore[] stores, Journal journal) {
    super(chain, stores, journal);
  }

  @Override
  public void record(String key, double[] values) {
    Router.join(recordAsync(key, values).toCompletableFuture());
  }

  @Override
  public Summary summary(String key) {
    return Router.join(summaryAsync(key).toCompletableFuture());
  }

  @Override
  public List<Summary> summaryAll(List<String> keys) {
    return Router.join(summaryAllAsync(keys).toCompletableFuture());
  }

  @Override
  public CompletionStage<Void> recordAsync(String key, double[] values) {
    return chain.router.<Void>route(true, 0, i -> stores[i].recordAsync(key, values), null)
        .thenApply(a -> {
          chain.router.journal(journal, key, a, 0, values);
          return null;
        });
  }

  @Override
  public CompletionStage<Summary> summaryAsync(String key) {
    return read(i -> stores[i].summaryAsync(key));
  }

  @Override
  public CompletionStage<List<Summary>> summaryAllAsync(List<String> keys) {
    return read(i -> stores[i].summaryAllAsync(keys));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n) {
    return Router.join(read(i -> CompletableFuture.completedFuture(stores[i].topKeys(n))));
  }

  @Override
  public boolean holdsState(String key) {
    return firstReadable(s -> s.holdsState(key));
  }

  @Override
  public void cleanUp() {
    each(StatsStore::cleanUp);
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.values(), batch.atMillis, batch.id);
  }

  @Override
  public CompletionStage<Void> replayAll(int member, List<Journal.Pending> batches) {
    return stores[member].replayAllAsync(replayBatches(batches, true));
  }
}
