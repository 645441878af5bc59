package io.windowpane.internal.failover;

import io.windowpane.TopKey;
import io.windowpane.spi.CounterStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A counter over a chain: adds to the first UP member, counts from the first readable one. */
final class FailoverCounterStore extends MemberStores<CounterStore> implements CounterStore {


  FailoverCounterStore(Chain chain, CounterStore[] stores, Journal journal) {
    super(chain, stores, journal);
  }

  @Override
  public long add(String key, long n) {
    return Router.join(addAsync(key, n).toCompletableFuture());
  }

  @Override
  public long count(String key) {
    return Router.join(countAsync(key).toCompletableFuture());
  }

  @Override
  public CompletionStage<Long> addAsync(String key, long n) {
    return chain.router.<Long>route(true, 0, i -> stores[i].addAsync(key, n), null).thenApply(a -> {
      chain.router.journal(journal, key, a, n, null);
      return a.value();
    });
  }

  @Override
  public CompletionStage<Long> countAsync(String key) {
    return read(i -> stores[i].countAsync(key));
  }

  @Override
  public List<Long> addAll(List<String> keys, long n) {
    return Router.join(addAllAsync(keys, n).toCompletableFuture());
  }

  @Override
  public List<Long> countAll(List<String> keys) {
    return Router.join(countAllAsync(keys).toCompletableFuture());
  }

  @Override
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    return chain.router.<List<Long>>route(true, 0, i -> stores[i].addAllAsync(keys, n), null)
        .thenApply(a -> {
          for (String key : keys) {
            chain.router.journal(journal, key, a, n, null);
          }
          return a.value();
        });
  }

  @Override
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return read(i -> stores[i].countAllAsync(keys));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n) {
    return Router.join(read(i -> CompletableFuture.completedFuture(stores[i].topKeys(n))));
  }

  /** Whether the first readable member holds state for the key. */
  @Override
  public boolean holdsState(String key) {
    return firstReadable(s -> s.holdsState(key));
  }

  @Override
  public void cleanUp() {
    each(CounterStore::cleanUp);
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.count, batch.atMillis, batch.id);
  }

  @Override
  public CompletionStage<Void> replayAll(int member, List<Journal.Pending> batches) {
    return stores[member].replayAllAsync(replayBatches(batches, false));
  }
}
