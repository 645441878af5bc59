package io.windowpane.internal.failover;

import io.windowpane.Failover.Health;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import io.windowpane.spi.ReplayBatch;
import io.windowpane.spi.StatsStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * What the chain's counter, limiter and statistics stores share: a store per member, a journal,
 * reads from the first readable member, writes journaled for replay, and the calls that are the
 * same for every kind of store ({@link #holdsState}, {@link #cleanUp}, {@link #replayAll}).
 */
abstract class MemberStores<S> implements Chain.Replayable {

  /**
   * How the chain reaches the calls every kind of member store has (the SPI's three store
   * interfaces share no supertype), and whether its replays carry values.
   */
  record Kind<S>(BiPredicate<S, String> holdsState, Consumer<S> cleanUp,
      BiFunction<S, List<ReplayBatch>, CompletionStage<Void>> replayAll, boolean values) {}

  static final Kind<CounterStore> COUNTERS = new Kind<>(CounterStore::holdsState,
      CounterStore::cleanUp, CounterStore::replayAllAsync, false);
  static final Kind<LimiterStore> LIMITERS = new Kind<>(LimiterStore::holdsState,
      LimiterStore::cleanUp, LimiterStore::replayAllAsync, false);
  static final Kind<StatsStore> STATS = new Kind<>(StatsStore::holdsState,
      StatsStore::cleanUp, StatsStore::replayAllAsync, true);

  final Chain chain;
  final S[] stores;
  final Journal journal;
  private final Kind<S> kind;

  MemberStores(Chain chain, S[] stores, Journal journal, Kind<S> kind) {
    this.chain = chain;
    this.stores = stores;
    this.journal = journal;
    this.kind = kind;
  }

  /** {@code op} on the first readable member (falling through on failure); its answer. */
  final <T> CompletableFuture<T> read(IntFunction<CompletionStage<T>> op) {
    return chain.router.<T>route(null, false, op).thenApply(Router.Answer::value);
  }

  /** {@code op}, a call that does not block, on the first readable member; its answer. */
  final <T> T readNow(Function<S, T> op) {
    return Router.join(read(i -> CompletableFuture.completedFuture(op.apply(stores[i]))));
  }

  /**
   * {@code op} on the first UP member (falling through on failure); its answer. When a member
   * after the first answered, {@code n} events (or {@code values}) for each of {@code keys} are
   * journaled for replay into the members before it.
   */
  final <T> CompletableFuture<T> write(IntFunction<CompletionStage<T>> op, List<String> keys,
      long n, double[] values) {
    return chain.router.<T>route(null, true, op).thenApply(a -> {
      for (String key : keys) {
        chain.router.journal(journal, key, a, n, values);
      }
      return a.value();
    });
  }

  /** Whether the first member that is not DOWN holds state for the key; false when all are. */
  public final boolean holdsState(String key) {
    for (int i = 0; i < stores.length; i++) {
      if (chain.members[i].health != Health.DOWN) {
        return kind.holdsState().test(stores[i], key);
      }
    }
    return false;
  }

  /** {@code cleanUp} on every member's store. */
  public final void cleanUp() {
    for (S s : stores) {
      kind.cleanUp().accept(s);
    }
  }

  @Override
  public final Journal journal() {
    return journal;
  }

  @Override
  public final CompletionStage<Void> replayAll(int member, List<Journal.Pending> batches) {
    List<ReplayBatch> out = new ArrayList<>(batches.size());
    for (Journal.Pending p : batches) {
      out.add(new ReplayBatch(p.key(), p.batch().count,
          kind.values() ? p.batch().values() : null, p.batch().atMillis, p.batch().id));
    }
    return kind.replayAll().apply(stores[member], out);
  }
}
