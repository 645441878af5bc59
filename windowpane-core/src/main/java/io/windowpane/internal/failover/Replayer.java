package io.windowpane.internal.failover;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/*
 * The replay of the journal into a member that takes replays.
 *
 * Catching up (recovery, before the member takes calls): rounds of replay, each sending every
 * batch pending for the member, CATCH_UP_IN_FLIGHT calls in flight. The fallback still answers
 * meanwhile and journals what it takes, so a round leaves the events taken during it; another
 * round follows while they are more than CAUGHT_UP_EVENTS, at most CATCH_UP_ROUNDS in all. Each
 * round is shorter than the last while the member replays faster than live traffic arrives, so
 * the member takes calls with a small tail left, not with as many events again as it just
 * replayed (which, replayed beside live traffic, browned Redis out in the failover drill).
 *
 * Stragglers (the member takes calls): the tail, and events of calls that picked the fallback
 * just before the switch, are replayed every round of the chain's thread, paced so that live
 * traffic keeps priority: at most LIVE_IN_FLIGHT calls in flight (a live call on the same
 * connection waits behind at most that many) and at most LIVE_BATCHES_PER_ROUND batches a round.
 *
 * Batches go out through the stores' replayAllAsync, up to REPLAY_CHUNK in one call: an engine
 * that batches replays (one FCALL, one transaction) sends many in one round trip; the in-flight
 * limits count batches, so the pacing holds for engines that do not.
 *
 * One replay per member at a time: the batches a running replay sent would otherwise go out
 * again (harmless, the ids make it idempotent, but wasted).
 */
final class Replayer {

  private static final System.Logger LOG = System.getLogger("io.windowpane.failover");

  /** Batches in flight while a member catches up (it takes no calls meanwhile). */
  static final int CATCH_UP_IN_FLIGHT = 256;
  /** A member is caught up when no more than this many events are left for it. */
  static final long CAUGHT_UP_EVENTS = 1_000;
  /** The most catch-up rounds before a member takes calls again. */
  static final int CATCH_UP_ROUNDS = 4;
  /** Batches in flight while the member also takes live calls. */
  static final int LIVE_IN_FLIGHT = 16;
  /** The most batches in one replay call (one engine call where the engine batches them). */
  static final int REPLAY_CHUNK = 64;
  /** The most batches replayed in one round while the member takes live calls. */
  static final int LIVE_BATCHES_PER_ROUND = 4_096;

  /** A batch awaiting replay, with the store it belongs to. */
  private record Item(Chain.Replayable store, Journal.Pending pending) {}

  private final Member[] members;
  private final FailoverSettings settings;
  private final HealthMonitor health;
  final List<Chain.Replayable> replayables = new CopyOnWriteArrayList<>();
  private String lastFailure = "";
  private long lastFailureNanos;

  Replayer(Member[] members, FailoverSettings settings, HealthMonitor health) {
    this.members = members;
    this.settings = settings;
    this.health = health;
  }

  /**
   * Catches member {@code m} up (see the design note); completes with the events sent, or null
   * while another replay into it still runs.
   */
  CompletableFuture<Long> catchUp(int m) {
    if (!members[m].replays) {
      return CompletableFuture.completedFuture(0L);
    }
    if (!members[m].replaying.compareAndSet(false, true)) {
      return null;
    }
    AtomicLong events = new AtomicLong();
    return rounds(m, 0, events).whenComplete((x, e) -> members[m].replaying.set(false))
        .thenApply(x -> {
          health.notify(l -> l.replayed(members[m].name, events.get()));
          return events.get();
        });
  }

  private CompletableFuture<Void> rounds(int m, int round, AtomicLong events) {
    List<Item> pending = pending(m, Integer.MAX_VALUE);
    if (pending.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return sendFrom(m, pending, 0, events, CATCH_UP_IN_FLIGHT).thenCompose(x ->
        round + 1 < CATCH_UP_ROUNDS && pendingEvents(m) > CAUGHT_UP_EVENTS
            ? rounds(m, round + 1, events) : CompletableFuture.completedFuture(null));
  }

  /**
   * Replays the stragglers into the writer {@code m}, paced; completes normally (a failure is
   * logged and retried next round), or null while another replay into it still runs.
   */
  CompletableFuture<Long> stragglers(int m) {
    if (!members[m].replaying.compareAndSet(false, true)) {
      return null;
    }
    List<Item> pending = pending(m, LIVE_BATCHES_PER_ROUND);
    if (pending.isEmpty()) {
      members[m].replaying.set(false);
      return CompletableFuture.completedFuture(0L);
    }
    AtomicLong events = new AtomicLong();
    return sendFrom(m, pending, 0, events, LIVE_IN_FLIGHT)
        .whenComplete((x, e) -> members[m].replaying.set(false))
        .handle((x, e) -> {
          if (e != null) {
            logFailure(members[m], e);
          } else {
            health.notify(l -> l.replayed(members[m].name, events.get()));
          }
          return events.get();
        });
  }

  /** Up to {@code most} batches pending for member {@code m}, with their stores. */
  private List<Item> pending(int m, int most) {
    long now = settings.clock().millis();
    List<Item> all = new ArrayList<>();
    for (Chain.Replayable r : replayables) {
      for (Journal.Pending p : r.journal().pendingFor(m, now)) {
        if (all.size() >= most) {
          return all;
        }
        all.add(new Item(r, p));
      }
    }
    return all;
  }

  /** Events awaiting replay into member {@code m}. */
  long pendingEvents(int m) {
    long pending = 0;
    for (Chain.Replayable r : replayables) {
      pending += r.journal().pendingEvents(m);
    }
    return pending;
  }

  /**
   * Sends {@code all[from..]} into member {@code m}, {@code inFlight} batches at a time: each
   * store's share of them in calls of at most REPLAY_CHUNK batches (one engine call where the
   * engine batches replays). A call that fails is sent again batch by batch, so a refusal
   * (e.g. an exact window past its bound) loses only its own batch.
   */
  private CompletableFuture<Void> sendFrom(int m, List<Item> all, int from,
      AtomicLong events, int inFlight) {
    if (from >= all.size()) {
      return CompletableFuture.completedFuture(null);
    }
    int to = Math.min(all.size(), from + inFlight);
    java.util.Map<Chain.Replayable, List<Journal.Pending>> byStore =
        new java.util.LinkedHashMap<>();
    for (int i = from; i < to; i++) {
      byStore.computeIfAbsent(all.get(i).store(), r -> new ArrayList<>())
          .add(all.get(i).pending());
    }
    long timeout = Math.max(members[m].callTimeoutMillis, members[m].probeTimeoutMillis) * 10;
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (java.util.Map.Entry<Chain.Replayable, List<Journal.Pending>> e : byStore.entrySet()) {
      Chain.Replayable r = e.getKey();
      List<Journal.Pending> batches = e.getValue();
      for (int c = 0; c < batches.size(); c += REPLAY_CHUNK) {
        List<Journal.Pending> chunk = batches.subList(c, Math.min(batches.size(),
            c + REPLAY_CHUNK));
        CompletableFuture<Void> f;
        try {
          f = Router.timed(chunk.size() == 1 ? r.replay(m, chunk.get(0).key(),
              chunk.get(0).batch()) : r.replayAll(m, chunk), timeout);
        } catch (RuntimeException x) {
          f = CompletableFuture.failedFuture(x);
        }
        sent.add(f.handle((v, x) -> {
          if (x == null) {
            for (Journal.Pending p : chunk) {
              events.addAndGet(p.batch().count);
              r.journal().delivered(p.key(), p.batch(), m, false);
            }
            return CompletableFuture.<Void>completedFuture(null);
          }
          Throwable cause = Router.unwrap(x);
          if (chunk.size() > 1) {
            return oneByOne(m, r, chunk, events, timeout);
          }
          if (Router.isRefusal(cause)) {
            refused(m, r, chunk.get(0), cause);
            return CompletableFuture.<Void>completedFuture(null);
          }
          return CompletableFuture.<Void>failedFuture(cause);
        }).thenCompose(x -> x));
      }
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]))
        .thenCompose(x -> sendFrom(m, all, to, events, inFlight));
  }

  /** A failed call's batches, each on its own. */
  private CompletableFuture<Void> oneByOne(int m, Chain.Replayable r,
      List<Journal.Pending> chunk, AtomicLong events, long timeout) {
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    for (Journal.Pending p : chunk) {
      CompletableFuture<Void> f;
      try {
        f = Router.timed(r.replay(m, p.key(), p.batch()), timeout);
      } catch (RuntimeException x) {
        f = CompletableFuture.failedFuture(x);
      }
      sent.add(f.handle((v, x) -> {
        if (x == null) {
          events.addAndGet(p.batch().count);
          r.journal().delivered(p.key(), p.batch(), m, false);
          return null;
        }
        Throwable cause = Router.unwrap(x);
        if (Router.isRefusal(cause)) {
          refused(m, r, p, cause);
          return null;
        }
        throw new CompletionException(cause);
      }));
    }
    return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
  }

  /** A batch the member refused for good (e.g. an exact window past its bound): lost. */
  private void refused(int m, Chain.Replayable r, Journal.Pending p, Throwable cause) {
    LOG.log(Level.WARNING, "failover: {0} refused a replay of {1} events of key {2}, counted "
        + "as lost: {3}", members[m].name, p.batch().count, p.key(), cause);
    r.journal().delivered(p.key(), p.batch(), m, true);
  }

  /** Logs a failed replay of stragglers: each new cause at once, a repeated one every 10 s. */
  private void logFailure(Member m, Throwable e) {
    String cause = String.valueOf(Router.unwrap(e));
    long now = System.nanoTime();
    if (!cause.equals(lastFailure) || now - lastFailureNanos > 10_000_000_000L) {
      lastFailure = cause;
      lastFailureNanos = now;
      LOG.log(Level.WARNING, "failover: replay into {0} failed, retried next round: {1}",
          m.name, cause);
    }
  }
}
