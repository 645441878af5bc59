package io.windowpane.spi;

import io.windowpane.Decision;

/**
 * Sees each backend call and each decision of a {@link io.windowpane.Windowpane}, for tracing:
 * which engine or failover member was called for what, how long it took (between
 * {@link #callStarted} and {@link #callEnded}), whether it failed, and each rate-limit
 * decision's outcome, the member that answered and whether it was degraded. Installed with
 * {@link io.windowpane.Windowpane#using(Engine, EngineObserver)}; windowpane-micrometer turns
 * it into Micrometer Observations (and so into spans), see docs/observability.md.
 *
 * <p><b>Cost when unused.</b> {@link #NONE} is the default. A {@code Windowpane} built without an
 * observer, or with {@code NONE}, puts nothing between its limiters and the engine, so its hot
 * path is exactly what it was without this interface; a failover chain checks one field per
 * member call.
 *
 * <p><b>Contract for implementors.</b>
 * <ul>
 *   <li>{@link #parent()} is called on the caller's thread when a decision (or a chain's call)
 *       starts, before any backend is asked: it captures the caller's context (the current
 *       span or observation) so that calls that start later on other threads (a fallback asked
 *       from an I/O thread after the primary failed) still hang under it. It may return null.
 *   <li>{@link #callStarted} and {@link #callEnded} come in pairs, one pair per attempt: a call
 *       that fails over to the next member of a chain is two pairs, the first ended with its
 *       failure. {@code callEnded} may run on another thread than {@code callStarted} (the
 *       backend's I/O thread, or the chain's timeout thread).
 *   <li>{@link #decided} runs once per decision of a rate limiter (each key of a batch is one),
 *       after the last call of that decision ended, on whichever thread completed it.
 *   <li>Methods must be thread-safe, quick and must not throw: a failure of an observer is not
 *       a failure of the decision (an exception it throws is dropped).
 * </ul>
 *
 * <p>Member names are those of {@link io.windowpane.Failover#status()} ("redis", "etcd",
 * "local", a second member of one engine "etcd-2"); for a {@code Windowpane} on a single engine
 * the member is the engine's own name. Operations are the rate limiter's calls that reach the
 * backend, named as the store methods without {@code Async}: {@code "tryAcquire"} (also for
 * {@code tryConsume}), {@code "tryAcquireAll"}, {@code "lease"} and
 * {@code "tryAcquireAllOrNothing"}. Counters, statistics windows, peeks and top keys are not
 * observed, nor a chain's own probes, replays and releases.
 */
public interface EngineObserver {

  /** The observer that does nothing: the default, and free (see the class comment). */
  EngineObserver NONE = new EngineObserver() {
    @Override
    public String toString() {
      return "EngineObserver.NONE";
    }
  };

  /**
   * The caller's context, captured on the caller's thread when a decision or a chain's call
   * starts, passed back to {@link #callStarted} and {@link #decided}; null by default.
   */
  default Object parent() {
    return null;
  }

  /**
   * A call to the backend of {@code member} for {@code operation} starts now; {@code fallback}
   * is true when the member is not the first of a failover chain (a fallback answering for the
   * primary). Returns a handle given back to {@link #callEnded} (null by default).
   */
  default Object callStarted(Object parent, String member, String operation, boolean fallback) {
    return null;
  }

  /**
   * The call of {@code call} (the handle {@link #callStarted} returned) ended: normally when
   * {@code failure} is null, else with it (a backend failure, or the chain's call timeout as a
   * {@link io.windowpane.WindowpaneTimeoutException}).
   */
  default void callEnded(Object call, Throwable failure) {}

  /**
   * Rate limiter {@code limiter} decided {@code decision}: its {@link Decision#allowed()},
   * {@link Decision#engine()} (the member that answered, empty on a single engine) and
   * {@link Decision#degraded()}.
   */
  default void decided(Object parent, String limiter, Decision decision) {}
}
