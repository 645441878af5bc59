package io.windowpane.internal.failover;

import io.windowpane.Failover.Health;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** What the chain's counter, limiter and statistics stores share: a store per member, a journal. */
abstract class MemberStores<S> implements Chain.Replayable {

  final Chain chain;
  final S[] stores;
  final Journal journal;

  MemberStores(Chain chain, S[] stores, Journal journal) {
    this.chain = chain;
    this.stores = stores;
    this.journal = journal;
  }

  /** {@code op} on the first readable member (falling through on failure); its answer. */
  final <T> java.util.concurrent.CompletableFuture<T> read(
      java.util.function.IntFunction<java.util.concurrent.CompletionStage<T>> op) {
    return chain.router.<T>route(null, false, op).thenApply(Router.Answer::value);
  }

  /** {@code holds} asked of the first member that is not DOWN; false when all are. */
  final boolean firstReadable(Predicate<S> holds) {
    for (int i = 0; i < stores.length; i++) {
      if (chain.members[i].health != Health.DOWN) {
        return holds.test(stores[i]);
      }
    }
    return false;
  }

  /** {@code cleanUp} on every member's store. */
  final void each(Consumer<S> cleanUp) {
    for (S s : stores) {
      cleanUp.accept(s);
    }
  }

  @Override
  public final Journal journal() {
    return journal;
  }

  /** {@code batches} as the SPI's replay batches, with their values for statistics. */
  static java.util.List<io.windowpane.spi.ReplayBatch> replayBatches(
      java.util.List<Journal.Pending> batches, boolean values) {
    java.util.List<io.windowpane.spi.ReplayBatch> out = new java.util.ArrayList<>(batches.size());
    for (Journal.Pending p : batches) {
      out.add(new io.windowpane.spi.ReplayBatch(p.key(), p.batch().count,
          values ? p.batch().values() : null, p.batch().atMillis, p.batch().id));
    }
    return out;
  }
}
