package io.windowpane.internal.failover;

import io.windowpane.CapacityExceededException;
import io.windowpane.Failover.Health;
import io.windowpane.Failover.Signal;
import io.windowpane.KeyCreationRefusedException;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.internal.observe.Observing;
import io.windowpane.spi.EngineObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;

/*
 * Routing: a write goes to the first UP member, a read to the first UP or READ_ONLY one. A call
 * that fails or waits longer than callTimeout on a member is answered by the next eligible one
 * at once (so a caller waits at most callTimeout per member while a fault is being detected,
 * and not at all once the member is tripped), and counts against the member's breaker
 * (Member), which may trip it through the HealthMonitor. Refusals that are not backend failures
 * (bad arguments, a full exact window) pass through unchanged. A member that refuses to create
 * a key (KeyCreationRefusedException: its store is short of memory) is not failing: the next
 * member answers, the refusing member's breaker counts nothing, and the events the next member
 * takes are not journaled for the refusing member (a replay would create the key it refused).
 *
 * The journal: events taken by any member but the first are noted with the members before it
 * that take replays (needsWhenTakenBy), for the Replayer.
 *
 * Observation: with an EngineObserver installed (Windowpane.using(engine, observer)), each
 * member asked is one call reported to it, started before the member is asked and ended with
 * its answer, failure or timeout; the caller's context is read once, on the caller's thread,
 * when the route starts. Without one (NONE) the route pays one field read.
 */
final class Router {

  /**
   * The answer of member {@code member}; {@code refused}: the members before it that refused to
   * create the call's key (memory pressure), as a bit set: the journal does not replay into
   * them, as a replay would create the key they refused.
   */
  record Answer<T>(int member, T value, int refused) {
    Answer(int member, T value) {
      this(member, value, 0);
    }
  }

  /** A route being observed: the observer, the caller's context, the operation's name. */
  private record Traced(EngineObserver observer, Object parent, String operation) {}

  private final Member[] members;
  private final FailoverSettings settings;
  private final HealthMonitor health;
  private final int[] needsWhenTakenBy;
  /** Installed once, before calls, by Windowpane.using(engine, observer). */
  private volatile EngineObserver observer = EngineObserver.NONE;

  Router(Member[] members, FailoverSettings settings, HealthMonitor health) {
    this.members = members;
    this.settings = settings;
    this.health = health;
    this.needsWhenTakenBy = new int[members.length];
    for (int by = 0; by < members.length; by++) {
      for (int j = 0; j < by; j++) {
        if (members[j].replays) {
          needsWhenTakenBy[by] |= 1 << j;
        }
      }
    }
  }

  void observer(EngineObserver observer) {
    this.observer = observer;
  }

  /**
   * Runs {@code op} (named {@code operation} for the observer; null: a counter's, statistics
   * window's or read's, not observed) on the first eligible member, falling through to the next
   * on failure or timeout; fails with the last failure when none is left.
   */
  <T> CompletableFuture<Answer<T>> route(String operation, boolean write,
      IntFunction<CompletionStage<T>> op) {
    return route(write, 0, op, null, traced(operation), 0);
  }

  /** The route's observation of {@code operation}; null when not observed. */
  private Traced traced(String operation) {
    EngineObserver o = observer;
    return o == EngineObserver.NONE || operation == null ? null
        : new Traced(o, Observing.parent(o), operation);
  }

  /**
   * {@link #route} for a write, from member {@code from} on, of items that the members in
   * {@code refused} (a bit set) refused to create; {@code last}: the failure answered when no
   * member is left.
   */
  <T> CompletableFuture<Answer<T>> routeFrom(String operation, int from, int refused,
      Throwable last, IntFunction<CompletionStage<T>> op) {
    return route(true, from, op, last, traced(operation), refused);
  }

  private <T> CompletableFuture<Answer<T>> route(boolean write, int from,
      IntFunction<CompletionStage<T>> op, Throwable last, Traced traced, int refused) {
    int i = next(write, from);
    if (i < 0) {
      return CompletableFuture.failedFuture(last != null ? last : new WindowpaneException(
          "no engine of the chain " + java.util.Arrays.toString(members) + " takes "
              + (write ? "writes" : "reads")));
    }
    Member m = members[i];
    Object call = traced == null ? null
        : Observing.started(traced.observer, traced.parent, m.name, traced.operation, i > 0);
    long t0 = System.nanoTime();
    CompletableFuture<T> f;
    try {
      f = op.apply(i).toCompletableFuture();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    if (f.isDone() && !f.isCompletedExceptionally()) {
      m.answered(System.nanoTime() - t0); // the in-process members' path: no extra stage
      if (traced != null) {
        Observing.ended(traced.observer, call, null);
      }
      return CompletableFuture.completedFuture(new Answer<>(i, f.join(), refused));
    }
    if (!m.inProcess && !f.isDone()) {
      f = f.copy().orTimeout(m.callTimeoutMillis, TimeUnit.MILLISECONDS);
    }
    return f.handle((v, e) -> {
      long nanos = System.nanoTime() - t0;
      if (e == null) {
        m.answered(nanos);
        if (traced != null) {
          Observing.ended(traced.observer, call, null);
        }
        return CompletableFuture.completedFuture(new Answer<>(i, v, refused));
      }
      Throwable cause = unwrap(e);
      if (cause instanceof java.util.concurrent.TimeoutException) {
        cause = new WindowpaneTimeoutException(m.name
            + " did not answer within the call timeout of " + m.callTimeoutMillis + " ms",
            cause);
      }
      if (traced != null) {
        Observing.ended(traced.observer, call, cause);
      }
      if (isRefusal(cause)) {
        m.answered(nanos);
        return CompletableFuture.<Answer<T>>failedFuture(cause);
      }
      if (cause instanceof KeyCreationRefusedException) {
        // a member short of memory refused a new key: it answered, and is not failing; the
        // next member takes this key (READ_ONLY for new keys), the breaker counts nothing
        m.answered(nanos);
        return route(write, i + 1, op, cause, traced, refused | (1 << i));
      }
      Health to = m.failed(cause, write, nanos, settings.failuresToTrip());
      if (to != null) {
        health.trip(m, to, to == Health.READ_ONLY ? Signal.WRITE_ERRORS : Signal.FAILURES,
            settings.failuresToTrip() + " failed calls in a row, the last: " + cause);
      }
      return route(write, i + 1, op, cause, traced, refused);
    }).thenCompose(Function.identity());
  }

  /** The first member from {@code from} on that takes writes (or reads), or -1. */
  int next(boolean write, int from) {
    for (int i = from; i < members.length; i++) {
      Health h = members[i].health;
      if (h == Health.UP || (!write && h == Health.READ_ONLY)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Journals events of answer {@code a} taken at their own instant {@code atMillis} (an
   * event-time add or record: replayed at that time), as {@link #journal} does.
   */
  void journalAt(Journal journal, String key, Answer<?> a, long atMillis, long count,
      double[] values) {
    int needs = needs(a);
    if (needs >= 0) {
      journal.add(key, atMillis, a.member(), needs, count, values);
    }
  }

  /**
   * Journals events of answer {@code a}, for replay into the members before it that take
   * replays, except those that refused to create the key: their replay would create it.
   */
  void journal(Journal journal, String key, Answer<?> a, long count, double[] values) {
    int needs = needs(a);
    if (needs >= 0) {
      journal.add(key, settings.clock().millis(), a.member(), needs, count, values);
    }
  }

  /**
   * The members that answer {@code a}'s events are replayed into (a bit set), or -1 for no
   * journal entry: answers of the first member, and those whose only takers refused to create
   * the key (kept where they were taken, not lost).
   */
  private int needs(Answer<?> a) {
    int by = a.member();
    if (by == 0) {
      return -1;
    }
    int needs = needsWhenTakenBy[by] & ~a.refused();
    return needs == 0 && needsWhenTakenBy[by] != 0 ? -1 : needs;
  }

  static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException(cause.toString(), cause);
    }
  }

  static Throwable unwrap(Throwable e) {
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  static boolean isRefusal(Throwable e) {
    return e instanceof IllegalArgumentException || e instanceof CapacityExceededException
        || e instanceof UnsupportedOperationException;
  }

  static <T> CompletableFuture<T> timed(CompletionStage<T> stage, long millis) {
    return stage.toCompletableFuture().copy().orTimeout(millis, TimeUnit.MILLISECONDS);
  }
}
