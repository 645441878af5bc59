package io.windowpane.internal.failover;

import io.windowpane.TopKey;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.EventTimeResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** A counter over a chain: adds to the first UP member, counts from the first readable one. */
final class FailoverCounterStore extends MemberStores<CounterStore> implements CounterStore {

  FailoverCounterStore(Chain chain, CounterStore[] stores, Journal journal) {
    super(chain, stores, journal, COUNTERS);
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
    return write(i -> stores[i].addAsync(key, n), List.of(key), n, null);
  }

  /**
   * Taken by the first UP member; one taken by a fallback is journaled at its own instant
   * ({@code min(atMillis, that member's now)}) and replayed there into the members before it.
   */
  @Override
  public CompletionStage<EventTimeResult> addAtAsync(String key, long n, long atMillis,
      long maxAheadMillis) {
    return chain.router.<EventTimeResult>route(null, true,
        i -> stores[i].addAtAsync(key, n, atMillis, maxAheadMillis)).thenApply(a -> {
          EventTimeResult r = a.value();
          if (r.verdict() == EventTimeResult.Verdict.RECORDED) {
            chain.router.journalAt(journal, key, a,
                EventTimeResult.instant(r.nowMillis(), atMillis), n, null);
          }
          return r;
        });
  }

  /**
   * Taken by the first UP member, item by item where it refuses to create some keys (memory
   * pressure: only those go to the next member, {@link BatchItems}); each recorded item is
   * journaled at its own instant, as {@link #addAtAsync} does.
   */
  @Override
  public CompletionStage<List<EventTimeResult>> addAllAtAsync(List<String> keys, long n,
      long atMillis, long maxAheadMillis) {
    return BatchItems.<EventTimeResult>route(chain.router, null, keys.size(),
        (i, items) -> stores[i].addAllAtAsync(BatchItems.at(keys, items), n, atMillis,
            maxAheadMillis)).thenApply(o -> {
              List<EventTimeResult> out = new ArrayList<>(keys.size());
              for (int k = 0; k < keys.size(); k++) {
                Router.Answer<EventTimeResult> a = o.answers().get(k);
                EventTimeResult r = a == null ? null : a.value();
                if (r != null && r.verdict() == EventTimeResult.Verdict.RECORDED) {
                  chain.router.journalAt(journal, keys.get(k), a,
                      EventTimeResult.instant(r.nowMillis(), atMillis), n, null);
                }
                out.add(r);
              }
              if (o.failure() != null) {
                throw o.unanswered("addAll", keys, out, o.failure());
              }
              return out;
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

  /**
   * Taken by the first UP member; where it refuses to create some keys (memory pressure), only
   * those items go to the next member ({@link BatchItems}), so every item counts once.
   */
  @Override
  public CompletionStage<List<Long>> addAllAsync(List<String> keys, long n) {
    return BatchItems.<Long>route(chain.router, null, keys.size(),
        (i, items) -> stores[i].addAllAsync(BatchItems.at(keys, items), n)).thenApply(o -> {
          List<Long> out = new ArrayList<>(keys.size());
          for (int k = 0; k < keys.size(); k++) {
            Router.Answer<Long> a = o.answers().get(k);
            if (a != null) {
              chain.router.journal(journal, keys.get(k), a, n, null);
            }
            out.add(a == null ? null : a.value());
          }
          if (o.failure() != null) {
            throw o.unanswered("addAll", keys, out, o.failure());
          }
          return out;
        });
  }

  @Override
  public CompletionStage<List<Long>> countAllAsync(List<String> keys) {
    return read(i -> stores[i].countAllAsync(keys));
  }

  /** The first readable member's top keys (empty when its engine cannot rank keys). */
  @Override
  public Optional<List<TopKey>> topKeys(int n) {
    return readNow(s -> s.topKeys(n));
  }

  @Override
  public CompletionStage<Void> replay(int member, String key, Journal.Batch batch) {
    return stores[member].replayAsync(key, batch.count, batch.atMillis, batch.id);
  }
}
