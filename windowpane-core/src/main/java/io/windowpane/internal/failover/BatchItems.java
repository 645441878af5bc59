package io.windowpane.internal.failover;

import io.windowpane.KeyCreationRefusedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/*
 * Batches (addAll, tryAcquireAll) through a chain, item by item where a member refuses to
 * create some items' keys.
 *
 * A member short of memory (the Redis engine under its memory guard) applies a batch's items on
 * existing keys and refuses the others: it fails with a KeyCreationRefusedException that carries
 * every item's answer, null for the refused ones. The items it applied stay applied, once, with
 * its answers; only the refused items go on, as a smaller batch, to the next member that takes
 * writes (which may refuse some of them in turn), with the refusing member noted in their
 * answers so that the journal does not replay into it (a replay would create the key it
 * refused). The whole batch going on instead would count the applied items twice: once in the
 * refusing member, once in the next.
 *
 * Items that no member took are left without an answer, with the failure that left them; the
 * caller's store decides what they get (a limiter's OnFailure policy, or a
 * KeyCreationRefusedException carrying every answer). Any other failure of a member (an error,
 * a timeout) sends the items it was asked on to the next member, as for a single call.
 */
final class BatchItems {

  private BatchItems() {}

  /**
   * Each item's answer ({@code null} where no member answered it) and the failure that left
   * those items unanswered ({@code null} when every item was answered).
   */
  record Outcome<T>(List<Router.Answer<T>> answers, Throwable failure) {

    /**
     * The failure to throw for the unanswered items: {@code failure} itself when no item was
     * answered (nothing was applied), else a {@link KeyCreationRefusedException} carrying
     * {@code values}, each answered item's value ({@code null} for the others), for the batch
     * of {@code operation} on {@code keys}.
     */
    RuntimeException unanswered(String operation, List<String> keys, List<?> values,
        Throwable failure) {
      boolean any = false;
      for (Router.Answer<T> a : answers) {
        any |= a != null;
      }
      if (!any) {
        return failure instanceof RuntimeException r ? r
            : new io.windowpane.WindowpaneException(failure.toString(), failure);
      }
      return KeyCreationRefusedException.ofBatch(operation, keys, values, "no member of the"
          + " chain took it: " + failure.getMessage(), failure);
    }
  }

  /** A member's answers to some items, null where it refused; its refusal, if any. */
  private record Partial<T>(List<T> values, KeyCreationRefusedException refusal) {}

  /**
   * Routes a batch of {@code size} items as a write: {@code op} sends the items at the given
   * positions (ascending) to member {@code i} and answers one value per item, in their order.
   */
  static <T> CompletableFuture<Outcome<T>> route(Router router, String operation, int size,
      BiFunction<Integer, List<Integer>, CompletionStage<List<T>>> op) {
    List<Integer> all = new ArrayList<>(size);
    for (int k = 0; k < size; k++) {
      all.add(k);
    }
    List<Router.Answer<T>> out = new ArrayList<>(Collections.nCopies(size, null));
    return route(router, operation, op, all, 0, 0, null, out);
  }

  private static <T> CompletableFuture<Outcome<T>> route(Router router, String operation,
      BiFunction<Integer, List<Integer>, CompletionStage<List<T>>> op, List<Integer> items,
      int from, int refused, Throwable last, List<Router.Answer<T>> out) {
    return router.<Partial<T>>routeFrom(operation, from, refused, last,
        i -> partial(op, i, items)).handle((a, e) -> {
          if (e != null) {
            return CompletableFuture.completedFuture(new Outcome<>(out, Router.unwrap(e)));
          }
          List<Integer> left = new ArrayList<>();
          List<T> values = a.value().values();
          for (int k = 0; k < items.size(); k++) {
            T v = values.get(k);
            if (v == null) {
              left.add(items.get(k));
            } else {
              out.set(items.get(k), new Router.Answer<>(a.member(), v, a.refused()));
            }
          }
          if (left.isEmpty()) {
            return CompletableFuture.completedFuture(new Outcome<>(out, null));
          }
          return route(router, operation, op, left, a.member() + 1,
              a.refused() | (1 << a.member()), a.value().refusal(), out);
        }).thenCompose(Function.identity());
  }

  /**
   * Member {@code i}'s answers to {@code items}; a refusal of some of them, which applied the
   * others, as an answer with nulls (the member answered, and is not failing).
   */
  private static <T> CompletionStage<Partial<T>> partial(
      BiFunction<Integer, List<Integer>, CompletionStage<List<T>>> op, int i,
      List<Integer> items) {
    CompletableFuture<List<T>> sent;
    try {
      sent = op.apply(i, items).toCompletableFuture();
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle((values, e) -> {
      if (e == null) {
        return CompletableFuture.completedFuture(new Partial<>(values, null));
      }
      Throwable cause = Router.unwrap(e);
      if (cause instanceof KeyCreationRefusedException refusal && refusal.answers()
          .filter(answers -> answers.size() == items.size()).isPresent()) {
        @SuppressWarnings("unchecked")
        List<T> answers = (List<T>) (List<?>) refusal.answers().get();
        return CompletableFuture.completedFuture(new Partial<>(answers, refusal));
      }
      return CompletableFuture.<Partial<T>>failedFuture(cause);
    }).thenCompose(Function.identity());
  }

  /** The items of {@code list} at {@code positions}, in that order. */
  static <E> List<E> at(List<E> list, List<Integer> positions) {
    if (positions.size() == list.size()) {
      return list;
    }
    List<E> out = new ArrayList<>(positions.size());
    for (int k : positions) {
      out.add(list.get(k));
    }
    return out;
  }
}
