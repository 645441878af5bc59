package io.windowpane.bench.failover;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.AtomicHistogram;
import org.HdrHistogram.Histogram;

/*
 * Design note: what one trial saw, per 100 ms bucket and per phase.
 *
 * A decision is counted in the bucket in which it completed (so "decisions/s" is what callers got
 * back in that tenth of a second, times ten) and in the histogram of the phase the trial was in
 * when it completed. Buckets are created on first use (a CAS into a fixed array) and are shared
 * by the caller threads: counters are LongAdders and latencies AtomicHistograms (2 significant
 * digits, 1 % resolution, enough for a p99 per bucket at a few thousand calls each, and 30 KB
 * apiece instead of the 120 KB of 3 digits).
 *
 * Phases follow the fault and the chain's own reports (this class is the chain's Listener):
 *
 *   HEALTHY    before the fault
 *   DETECTING  fault injected, the chain still routes to Redis (calls fail over one by one)
 *   FALLBACK   Redis tripped: the chain routes to the local engine
 *   RECOVERING Redis is back (restarted or resumed), the chain still on the local engine
 *   RECOVERED  the chain routes to Redis again
 *
 * "On the fallback" below means FALLBACK and RECOVERING together. A trip reported while HEALTHY
 * (the latency signal on a loaded machine, say) is a false trip, one while RECOVERED a re-trip:
 * both are recorded and counted, and the phase does not move. If Redis is still tripped when the
 * fault comes (a false trip not yet recovered), the trial goes straight to FALLBACK and is marked
 * (trippedAtFault): it measures no detection.
 *
 * Times are System.nanoTime() values; everything reported is relative to the trial's origin.
 */

/** One trial's timeline: 100 ms buckets, phases, and the instants that matter. */
final class Timeline implements Failover.Listener {

  static final long BUCKET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** 3 minutes of buckets; later completions go into the last one. */
  static final int MAX_BUCKETS = 1_800;
  static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
  static final long NONE = Long.MIN_VALUE;

  /** Who answered: the primary, the local fallback, the last resort, or something else. */
  static final String[] ENGINES = {"redis", "local", "none", "other"};
  static final int PRIMARY = 0;
  static final int LOCAL = 1;

  enum Phase { HEALTHY, DETECTING, FALLBACK, RECOVERING, RECOVERED }

  /** A health change the chain reported at {@code atNanos}. */
  record Transition(long atNanos, String engine, Health from, Health to, String reason) {}

  /** A replay the chain reported at {@code atNanos}. */
  record Replay(long atNanos, String engine, long events) {}

  final String label;
  private volatile long originNanos;
  private final AtomicReferenceArray<Bucket> buckets = new AtomicReferenceArray<>(MAX_BUCKETS);
  private final AtomicHistogram[] byPhase = new AtomicHistogram[Phase.values().length];
  private final LongAdder[] errorsByPhase = new LongAdder[Phase.values().length];
  private volatile Phase phase = Phase.HEALTHY;

  private volatile long faultNanos = NONE;
  private volatile long faultDoneNanos = NONE;
  private volatile long tripNanos = NONE;
  private volatile long restartNanos = NONE;
  private volatile long recoveredNanos = NONE;
  private volatile long reconnectedNanos = NONE;
  private volatile boolean primaryUp = true;
  private volatile boolean trippedAtFault;
  private final AtomicLong firstFallbackNanos = new AtomicLong(NONE);
  private final AtomicLong firstPrimaryAfterRestartNanos = new AtomicLong(NONE);
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final List<Transition> transitions = new CopyOnWriteArrayList<>(); // absolute times
  private final List<Replay> replays = new CopyOnWriteArrayList<>(); // absolute times
  private final LongAdder falseTrips = new LongAdder();
  private final LongAdder retrips = new LongAdder();

  /** A timeline whose origin is now; {@link #start()} moves it to when the load starts. */
  Timeline(String label) {
    this.label = label;
    this.originNanos = System.nanoTime();
    for (int i = 0; i < byPhase.length; i++) {
      byPhase[i] = new AtomicHistogram(MAX_LATENCY_NANOS, 3);
      errorsByPhase[i] = new LongAdder();
    }
  }

  /** The counts of one bucket. */
  static final class Bucket {
    final LongAdder decisions = new LongAdder();
    final LongAdder allowed = new LongAdder();
    final LongAdder degraded = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder addErrors = new LongAdder();
    final LongAdder[] byEngine = {new LongAdder(), new LongAdder(), new LongAdder(),
        new LongAdder()};
    final AtomicHistogram latency = new AtomicHistogram(MAX_LATENCY_NANOS, 2);
    final AtomicHistogram fromSchedule = new AtomicHistogram(MAX_LATENCY_NANOS, 2);
  }

  // ---- recording (caller threads) -----------------------------------------------------------

  /**
   * A decision that started at {@code t0}, was due at {@code due} (its paced start) and
   * completed at {@code t1}; {@code d} is null when the call threw.
   */
  void decision(long due, long t0, long t1, Decision d, Throwable error) {
    Bucket b = bucket(t1);
    Phase p = phase;
    if (d == null) {
      b.errors.increment();
      errorsByPhase[p.ordinal()].increment();
      firstError.compareAndSet(null, String.valueOf(error));
      return;
    }
    long took = t1 - t0;
    b.decisions.increment();
    if (d.allowed()) {
      b.allowed.increment();
    }
    if (d.degraded()) {
      b.degraded.increment();
    }
    int engine = engineIndex(d);
    b.byEngine[engine].increment();
    b.latency.recordValue(clamp(took));
    b.fromSchedule.recordValue(clamp(t1 - due));
    byPhase[p.ordinal()].recordValue(clamp(took));
    if (engine == LOCAL && faultNanos != NONE && t1 - faultNanos > 0) {
      casFirst(firstFallbackNanos, t1);
    }
    if (engine == PRIMARY && restartNanos != NONE && t0 - restartNanos > 0) {
      casFirst(firstPrimaryAfterRestartNanos, t1);
    }
  }

  /** An {@code add} on the counter that threw. */
  void addFailed(long t1, Throwable error) {
    bucket(t1).addErrors.increment();
    errorsByPhase[phase.ordinal()].increment();
    firstError.compareAndSet(null, "add: " + error);
  }

  static int engineIndex(Decision d) {
    String e = d.engine().orElse("");
    for (int i = 0; i < ENGINES.length - 1; i++) {
      if (ENGINES[i].equals(e)) {
        return i;
      }
    }
    return ENGINES.length - 1;
  }

  private static long clamp(long nanos) {
    return Math.max(1, Math.min(nanos, MAX_LATENCY_NANOS));
  }

  private static void casFirst(AtomicLong first, long t) {
    for (long cur = first.get(); cur == NONE || t - cur < 0; cur = first.get()) {
      if (first.compareAndSet(cur, t)) {
        return;
      }
    }
  }

  private Bucket bucket(long t) {
    int i = (int) Math.max(0, Math.min(MAX_BUCKETS - 1, (t - originNanos) / BUCKET_NANOS));
    Bucket b = buckets.get(i);
    if (b == null) {
      Bucket fresh = new Bucket();
      b = buckets.compareAndExchange(i, null, fresh);
      if (b == null) {
        b = fresh;
      }
    }
    return b;
  }

  // ---- marks (the driver, the chain's thread) ------------------------------------------------

  /** The load starts now: the origin of every time reported. */
  void start() {
    originNanos = System.nanoTime();
  }

  /** The fault is being injected now (before the signal is sent). */
  void fault() {
    faultNanos = System.nanoTime();
    if (primaryUp) {
      phase = Phase.DETECTING;
    } else {
      trippedAtFault = true;
      phase = Phase.FALLBACK;
    }
  }

  /** The chain's Redis connection answers again (a probe of the engine passed). */
  void reconnected() {
    reconnectedNanos = System.nanoTime();
  }

  /** The call that injected the fault has returned. */
  void faultDone() {
    faultDoneNanos = System.nanoTime();
  }

  /** Redis answers again through the proxy (a new server retargeted, or the old one resumed). */
  void restart() {
    restartNanos = System.nanoTime();
    if (phase == Phase.DETECTING || phase == Phase.FALLBACK) {
      phase = Phase.RECOVERING;
    }
  }

  @Override
  public void healthChanged(String engine, Health from, Health to, String reason) {
    long now = System.nanoTime();
    transitions.add(new Transition(now, engine, from, to, reason));
    if (!engine.equals(ENGINES[PRIMARY])) {
      return;
    }
    primaryUp = to == Health.UP;
    if (from == Health.UP) {
      if (phase == Phase.DETECTING) {
        tripNanos = now;
        phase = Phase.FALLBACK;
      } else if (phase == Phase.HEALTHY) {
        falseTrips.increment();
      } else if (phase == Phase.RECOVERED) {
        retrips.increment();
      }
    } else if (to == Health.UP && phase == Phase.RECOVERING) {
      recoveredNanos = now;
      phase = Phase.RECOVERED;
    }
  }

  @Override
  public void replayed(String engine, long events) {
    replays.add(new Replay(System.nanoTime(), engine, events));
  }

  // ---- reading (after the trial) -------------------------------------------------------------

  Phase phase() {
    return phase;
  }

  /** Whether the chain last reported Redis UP. */
  boolean primaryUp() {
    return primaryUp;
  }

  boolean recovered() {
    return recoveredNanos != NONE;
  }

  /** Nanoseconds from the origin to {@code t}, or {@link #NONE}. */
  private long rel(long t) {
    return t == NONE ? NONE : t - originNanos;
  }

  long faultAt() {
    return rel(faultNanos);
  }

  long faultDoneAt() {
    return rel(faultDoneNanos);
  }

  long tripAt() {
    return rel(tripNanos);
  }

  long restartAt() {
    return rel(restartNanos);
  }

  long recoveredAt() {
    return rel(recoveredNanos);
  }

  long reconnectedAt() {
    return rel(reconnectedNanos);
  }

  boolean trippedAtFault() {
    return trippedAtFault;
  }

  long retrips() {
    return retrips.sum();
  }

  long firstFallbackAt() {
    return rel(firstFallbackNanos.get());
  }

  long firstPrimaryAfterRestartAt() {
    return rel(firstPrimaryAfterRestartNanos.get());
  }

  /** The health changes the chain reported, times relative to the origin. */
  List<Transition> transitions() {
    List<Transition> out = new ArrayList<>();
    for (Transition t : transitions) {
      out.add(new Transition(t.atNanos() - originNanos, t.engine(), t.from(), t.to(), t.reason()));
    }
    return out;
  }

  /** The replays the chain reported, times relative to the origin. */
  List<Replay> replays() {
    List<Replay> out = new ArrayList<>();
    for (Replay r : replays) {
      out.add(new Replay(r.atNanos() - originNanos, r.engine(), r.events()));
    }
    return out;
  }

  long falseTrips() {
    return falseTrips.sum();
  }

  String firstError() {
    return firstError.get();
  }

  /** Latencies of the decisions completed in {@code phases}, merged. */
  Histogram latency(Phase... phases) {
    Histogram h = new Histogram(MAX_LATENCY_NANOS, 3);
    for (Phase p : phases) {
      h.add(byPhase[p.ordinal()]);
    }
    return h;
  }

  long errors(Phase... phases) {
    long n = 0;
    for (Phase p : phases) {
      n += errorsByPhase[p.ordinal()].sum();
    }
    return n;
  }

  /** The buckets from the origin to the last one used; empty buckets included. */
  List<Bucket> buckets() {
    int last = -1;
    for (int i = 0; i < MAX_BUCKETS; i++) {
      if (buckets.get(i) != null) {
        last = i;
      }
    }
    List<Bucket> out = new ArrayList<>(last + 1);
    for (int i = 0; i <= last; i++) {
      Bucket b = buckets.get(i);
      out.add(b != null ? b : new Bucket());
    }
    return out;
  }

  /**
   * The engine taking writes at {@code atNanos} after the origin, by the chain's reports: the
   * primary until it trips, the local engine until it is UP again.
   */
  String activeAt(long atNanos) {
    String active = ENGINES[PRIMARY];
    for (Transition t : transitions()) {
      if (t.atNanos() > atNanos) {
        break;
      }
      if (t.engine().equals(ENGINES[PRIMARY])) {
        active = t.to() == Health.UP ? ENGINES[PRIMARY] : ENGINES[LOCAL];
      }
    }
    return active;
  }
}
