package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.windowpane.MillisClock;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/*
 * The dashboard's history: the last five minutes of decisions per second (per limiter) and
 * engine calls per second (per operation), so that a page opened now draws at once what
 * happened before it was opened (docs/dashboard.md, "History").
 *
 * How it is filled. A daemon thread wakes just after each wall-clock second begins and reads the
 * totals the service's meters keep anyway (ServiceMetrics: the counters and timers /metrics and
 * the feed read). The difference from its previous reading is what happened in the second that
 * just ended; it goes into that series' SecondRing, 300 one-second slots. The request path is
 * untouched: it increments the meters as before and never sees the history.
 *
 * Why differences of totals rather than a second count on the request path: the decisions are
 * counted there already, and another increment per request would make every request pay for a
 * view that is seldom open. The differences telescope: whatever the sampler's timing, the
 * seconds of a series add up to the change of its totals over the span they cover, so nothing
 * is lost or counted twice; a late tick only moves counts into the next second.
 *
 * Cost. One walk over the limiters' and operations' meters a second (what one feed request
 * does), and only for a series that changed, one slot written. Memory: a ring of 300 slots of
 * 4 longs (9.6 KB) per limiter and per engine operation that has had traffic since start, so
 * bounded by the configuration (limiter names) and the engine's operations.
 *
 * Time. Wall-clock time, the page's own axis (tests may stop the engine's clock). A sample at
 * t is filed under the second floorDiv(t, 1000) - 1, the one that just ended, as the sampler
 * runs 20 ms after a second begins; the clock going back files under the previous sample's
 * second, so the ring never runs backwards.
 *
 * Thread safety. sample() and write() hold this object's lock, which alone guards the rings
 * and the last totals; the meters themselves are read lock-free (thread-safe counters).
 */
final class DashboardHistory implements AutoCloseable {

  /** How long after a second begins the sampler reads the meters. */
  private static final long TICK_OFFSET_MILLIS = 20;

  /** One series: its totals at the last sample and its last 300 seconds of differences. */
  private static final class Series {
    final long[] totals;
    final SecondRing ring;

    Series(int width) {
      this.totals = new long[width];
      this.ring = new SecondRing(width);
    }
  }

  private final ServiceMetrics metrics;
  private final MillisClock clock;
  private final Map<String, Series> limiters = new TreeMap<>(); // allowed, denied, wouldDeny
  private final Map<String, Series> operations = new TreeMap<>(); // calls, errors, nanos
  private long firstSecond; // the first second filed (valid once sampled)
  private long lastSecond; // the last second filed, or the second before the start
  private boolean sampled;
  private ScheduledExecutorService timer; // null: sampled by hand (tests)

  /**
   * A history of {@code metrics} from now on, on {@code clock}; nothing samples it until
   * {@link #sampleEverySecond()} (or {@link #sample()} by hand).
   */
  DashboardHistory(ServiceMetrics metrics, MillisClock clock) {
    this.metrics = metrics;
    this.clock = clock;
    this.lastSecond = Math.floorDiv(clock.millis(), 1000) - 1;
    read(lastSecond, false); // the totals so far are the baseline, not history
  }

  /** Samples just after every wall-clock second begins, on a daemon thread, until closed. */
  synchronized void sampleEverySecond() {
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "windowpane-dashboard-history");
        t.setDaemon(true);
        return t;
      });
      scheduleNext();
    }
  }

  private void scheduleNext() {
    long delay = 1000 - Math.floorMod(clock.millis(), 1000) + TICK_OFFSET_MILLIS;
    timer.schedule(this::tick, delay, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      sample();
    } finally {
      synchronized (this) {
        if (timer != null && !timer.isShutdown()) {
          scheduleNext();
        }
      }
    }
  }

  /** Files what the meters counted since the previous sample under the second just ended. */
  synchronized void sample() {
    long second = Math.max(Math.floorDiv(clock.millis(), 1000) - 1, lastSecond);
    if (!sampled) {
      firstSecond = second;
      sampled = true;
    }
    lastSecond = second;
    read(second, true);
  }

  private void read(long second, boolean file) {
    metrics.decisionTotals((name, t) -> update(limiters, name, second, file,
        t.allowed(), t.denied(), t.wouldDeny()));
    for (ServiceMetrics.BackendTotals t : metrics.backendTotals()) {
      update(operations, t.operation(), second, file, t.ok() + t.errors(), t.errors(),
          Math.round(t.totalMillis() * 1e6));
    }
  }

  private static void update(Map<String, Series> all, String name, long second, boolean file,
      long... totals) {
    Series series = all.computeIfAbsent(name, n -> new Series(totals.length));
    long[] deltas = new long[totals.length];
    boolean changed = false;
    for (int i = 0; i < totals.length; i++) {
      deltas[i] = totals[i] - series.totals[i];
      changed |= deltas[i] != 0;
      series.totals[i] = totals[i];
    }
    if (file && changed) {
      series.ring.add(second, deltas);
    }
  }

  /** How many seconds the history covers: from the first sample's, at most 300. */
  synchronized int seconds() {
    return sampled ? (int) Math.min(SecondRing.SECONDS, lastSecond - firstSecond + 1) : 0;
  }

  /**
   * Writes the history into {@code out} (the {@code history} member of the feed, see
   * docs/openapi.yaml): the service's time now, the last second filed and how many seconds
   * are covered; for each limiter and operation with traffic since start, its totals at the
   * last sample and one row for each covered second in which it changed. A covered second
   * without a row had nothing.
   */
  synchronized void write(ObjectNode out) {
    int covered = seconds();
    long from = lastSecond - covered + 1;
    out.put("nowMillis", clock.millis());
    out.put("toSecond", lastSecond);
    out.put("seconds", covered);
    ArrayNode limiterRows = out.putArray("limiters");
    limiters.forEach((name, series) -> {
      ObjectNode l = limiterRows.addObject();
      l.put("name", name);
      l.put("allowed", series.totals[0]);
      l.put("denied", series.totals[1]);
      l.put("wouldDeny", series.totals[2]);
      ArrayNode rows = l.putArray("seconds");
      for (long s = from; s <= lastSecond; s++) {
        if (series.ring.has(s)) {
          rows.addArray().add(s).add(series.ring.count(s, 0)).add(series.ring.count(s, 1))
              .add(series.ring.count(s, 2));
        }
      }
    });
    ArrayNode operationRows = out.putArray("backend");
    operations.forEach((name, series) -> {
      ObjectNode o = operationRows.addObject();
      o.put("operation", name);
      o.put("calls", series.totals[0]);
      o.put("errors", series.totals[1]);
      o.put("totalMillis", series.totals[2] / 1e6);
      ArrayNode rows = o.putArray("seconds");
      for (long s = from; s <= lastSecond; s++) {
        if (series.ring.has(s)) {
          rows.addArray().add(s).add(series.ring.count(s, 0)).add(series.ring.count(s, 1))
              .add(series.ring.count(s, 2) / 1e6);
        }
      }
    });
  }

  /** Stops the sampler; the history stays readable. */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
