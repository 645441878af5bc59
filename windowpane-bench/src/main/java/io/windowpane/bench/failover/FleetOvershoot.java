package io.windowpane.bench.failover;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Failover.Health;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.testkit.fault.FaultProxy;
import io.windowpane.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/*
 * Design note: the fleet bound of docs/failover.md ("The local fallback and the fleet"), measured.
 *
 * N failover chains in one JVM stand for N service nodes: each has its own Redis connection
 * (through one FaultProxy, to one redis-server) and its own local engine, at fleetNodes(N), so
 * each local fallback allows floor(L / N) of the hot key's limit L per window. Each node offers
 * `offer` x L / N decisions a second on the one hot key (one paced thread per node), so the fleet
 * offers offer x L: more than the limit, on Redis and on the fallbacks alike.
 *
 * When to kill. Offered twice the limit, Redis admits L in the first half of each window and
 * denies the rest, so the fleet's admissions come in bursts a window apart. A kill in the quiet
 * half lets the fallbacks' fresh windows fill while Redis's burst is already leaving: the edge
 * shows little. The worst edge is a kill right after a burst: Redis has just admitted L, and the
 * fallbacks admit their L at once. So after `healthy` the driver samples the fleet's admissions
 * every 2 ms and kills as soon as the last second holds at least L and the last 100 ms none (a
 * burst just ended), or after 3 s regardless (killTargeted then says false).
 *
 * Every allowed decision is stamped with the wall-clock millisecond at which it returned and
 * counted per millisecond across the fleet. A "1-second window" is then any [t, t + 1 s): the
 * windows aligned to the 100 ms panes (t a multiple of 100 ms of the epoch, the panes both
 * engines use, so one such window is exactly what the limit governs), and, for information,
 * every millisecond t. Each window falls in one class by where it lies against the kill, the
 * moment the last node tripped, the restart and the moment the last node was back on Redis:
 *
 *   before         ends by the kill                                  bound L (Redis, exact)
 *   trip edge      starts before the last trip, ends after the kill  bound 2L
 *   outage         starts after the last trip, ends by the restart   bound N x max(1, floor(L/N))
 *   recovery edge  straddles [restart, last recovery]                bound 2L
 *   after          starts after the last recovery                    bound L (while no node
 *                                                                     trips again: a re-trip is
 *                                                                     another trip edge, 2L)
 *
 * When exactly an admission happened is only known to lie between the wall-clock milliseconds
 * read before and after its call (the engine reads its clock in between: the local engine in
 * process, Redis with TIME on the server). So each window gets two counts: the admissions
 * certainly inside it (the whole [before, after] interval inside) and those possibly inside (the
 * interval overlaps it). A class is within its bound when even the possible count is; beyond it
 * when the certain count is; otherwise the stamps cannot tell (an admission decided near a pane
 * boundary during a slow call). With prefix counts P0[t] = #{before < t}, P1[t] = #{after < t}:
 *
 *   possible [a, b) = P0[b] - P1[a]
 *   certain  [a, b) = P1[b] - P0[a] + #{before < a, after >= b}   (the last: calls over 1 s)
 */

/** N chains sharing one Redis, one hot key offered above the limit, Redis killed: the overshoot. */
final class FleetOvershoot {

  private static final long PANE_MILLIS = 100;
  private static final long WINDOW_MILLIS = 1_000;
  private static final long RECOVERY_DEADLINE_MILLIS = 20_000;

  /**
   * The largest counts of one class of windows: of the windows aligned to the panes, the most
   * admissions certainly in one and the most possibly in one (with where that window starts, ms
   * after the load started), and the most possibly in any 1 s interval (ms steps).
   */
  record WindowMax(String cls, long bound, int alignedWindows, long certainMax,
      long certainMaxAt, long possibleMax, long possibleMaxAt, long anyPossibleMax) {

    boolean withinBound() {
      return possibleMax <= bound;
    }

    boolean beyondBound() {
      return certainMax > bound;
    }

    /** "within", "beyond", or "within the stamps' uncertainty". */
    String verdict() {
      return alignedWindows == 0 ? "no window" : withinBound() ? "within"
          : beyondBound() ? "beyond" : "undecided by the stamps";
    }

    Map<String, Object> json(long limit) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("class", cls);
      m.put("bound", bound);
      m.put("alignedWindows", alignedWindows);
      m.put("certainMax", certainMax);
      m.put("certainMaxOfLimit", (double) certainMax / limit);
      m.put("certainMaxStartsAtMillis", certainMaxAt);
      m.put("possibleMax", possibleMax);
      m.put("possibleMaxOfLimit", (double) possibleMax / limit);
      m.put("possibleMaxStartsAtMillis", possibleMaxAt);
      m.put("anyIntervalPossibleMax", anyPossibleMax);
      m.put("verdict", verdict());
      return m;
    }
  }

  /**
   * What the fleet did. Instants are milliseconds after the load started; {@code admitted} is
   * the fleet's admissions per 100 ms pane from there, and {@code byLocal} those the local
   * fallbacks gave.
   */
  record Result(int nodes, long limit, boolean leasing, double offeredPerNode, long killAt,
      long[] tripAt,
      long restartAt, long[] recoveredAt, long stopAt, List<WindowMax> windows, long[] admitted,
      long[] byLocal, long decisions, long errors, String firstError,
      List<List<Map<String, Object>>> transitions, boolean killTargeted) {

    /** Trips reported after the node's first recovery, summed over the nodes. */
    long retrips() {
      long n = 0;
      for (int i = 0; i < transitions.size(); i++) {
        for (Map<String, Object> t : transitions.get(i)) {
          if (recoveredAt[i] >= 0 && (Long) t.get("atMillis") > recoveredAt[i]
              && "UP".equals(t.get("from"))) {
            n++;
          }
        }
      }
      return n;
    }

    long lastTripAt() {
      return max(tripAt);
    }

    long lastRecoveredAt() {
      return max(recoveredAt);
    }

    private static long max(long[] a) {
      long m = Long.MIN_VALUE;
      for (long x : a) {
        m = Math.max(m, x);
      }
      return m;
    }

    boolean withinBounds() {
      return windows.stream().allMatch(WindowMax::withinBound);
    }
  }

  /** One node: its chain and limiter, its paced caller, what it admitted and when. */
  private static final class Node implements Failover.Listener {
    RateLimiter limiter; // set before the node's thread starts
    final AtomicLong tripped = new AtomicLong(Long.MIN_VALUE);
    final AtomicLong recovered = new AtomicLong(Long.MIN_VALUE);
    final long[] before; // wall-clock ms read before each admitted call
    final long[] after; // and after it
    final boolean[] byLocal;
    int admittedCount;
    long decisions;
    final LongAdder errors = new LongAdder();
    volatile String firstError;
    final List<Object[]> transitions = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean killed;
    volatile boolean restarted;
    Thread thread;

    Node(int capacity) {
      this.before = new long[capacity];
      this.after = new long[capacity];
      this.byLocal = new boolean[capacity];
    }

    @Override
    public void healthChanged(String engine, Health from, Health to, String reason) {
      if (!engine.equals(Timeline.ENGINES[Timeline.PRIMARY])) {
        return;
      }
      long now = System.currentTimeMillis();
      transitions.add(new Object[] {now, from, to, reason});
      if (from == Health.UP && killed) {
        tripped.compareAndSet(Long.MIN_VALUE, now);
      } else if (to == Health.UP && restarted) {
        recovered.compareAndSet(Long.MIN_VALUE, now);
      }
    }
  }

  private FleetOvershoot() {}

  static Result run(DrillOptions o, String runId) throws Exception {
    int n = o.fleetNodes();
    long limit = o.fleetLimit();
    double perNode = o.fleetOffer() * limit / n;
    long intervalNanos = Math.round(1e9 / perNode);
    long totalMillis = o.fleetHealthy().toMillis() + o.fleetOutage().toMillis()
        + RECOVERY_DEADLINE_MILLIS + o.fleetAfter().toMillis();
    int capacity = (int) Math.min(50_000_000, (long) (perNode * totalMillis / 1000 * 1.2) + 1000);
    Limit hot = Limit.of(limit, WindowSpec.panes(Duration.ofSeconds(1), 10));
    List<AutoCloseable> open = new ArrayList<>();
    List<Node> nodes = new ArrayList<>();
    try {
      RedisServer first = FaultTrial.closing(open, RedisServer.start());
      FaultProxy proxy = FaultTrial.closing(open, FaultProxy.start(first.host(), first.port()));
      for (int i = 0; i < n; i++) {
        RedisEngine redis = RedisEngine.builder()
            .uri("redis://" + proxy.host() + ":" + proxy.port()).build();
        Node node = new Node(capacity);
        Failover chain = Failover.chain(redis, Windowpane.localBuilder().buildEngine())
            .fleetNodes(n).listener(node).build();
        Windowpane wp = FaultTrial.closing(open, Windowpane.using(chain));
        Quota quota = o.fleetLeasing() ? Quota.of(hot).withLeasing(Leasing.defaults())
            : Quota.of(hot);
        node.limiter = wp.limiter("drill-" + runId + "-fleet", quota);
        nodes.add(node);
      }
      long originMillis = System.currentTimeMillis();
      long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder admitted = new LongAdder();
      for (int i = 0; i < n; i++) {
        Node node = nodes.get(i);
        long firstDue = start + intervalNanos * i / n;
        node.thread = new Thread(() -> drive(node, firstDue, intervalNanos, stop, admitted),
            "drill-fleet-node-" + i);
        node.thread.setDaemon(true);
        node.thread.start();
      }
      long killAt;
      long restartAt;
      boolean killTargeted;
      try {
        FaultTrial.sleep(o.fleetHealthy().toMillis());
        killTargeted = awaitBurstEnd(admitted, limit);
        for (Node node : nodes) {
          node.killed = true;
        }
        killAt = System.currentTimeMillis() - originMillis;
        first.kill();
        FaultTrial.sleep(o.fleetOutage().toMillis());
        RedisServer second = FaultTrial.closing(open, RedisServer.start());
        for (Node node : nodes) {
          node.restarted = true;
        }
        proxy.retarget(second.host(), second.port());
        restartAt = System.currentTimeMillis() - originMillis;
        FaultTrial.await(() -> nodes.stream().allMatch(x -> x.recovered.get() != Long.MIN_VALUE),
            RECOVERY_DEADLINE_MILLIS);
        FaultTrial.sleep(o.fleetAfter().toMillis());
      } finally {
        stop.set(true);
        for (Node node : nodes) {
          node.thread.join(10_000);
        }
      }
      long stopAt = System.currentTimeMillis() - originMillis;
      return analyse(nodes, n, limit, o.fleetLeasing(), perNode, originMillis, killAt, restartAt, stopAt,
          killTargeted);
    } finally {
      FaultTrial.closeAll(open);
    }
  }

  /**
   * Samples the fleet's admissions every 2 ms until the last second holds at least {@code limit}
   * and the last 100 ms none; whether that came within 3 s.
   */
  private static boolean awaitBurstEnd(LongAdder admitted, long limit)
      throws InterruptedException {
    long start = System.nanoTime();
    java.util.ArrayDeque<long[]> samples = new java.util.ArrayDeque<>(); // {nanos, total}
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)) {
      long now = System.nanoTime();
      long total = admitted.sum();
      samples.addLast(new long[] {now, total});
      while (now - samples.peekFirst()[0] > TimeUnit.MILLISECONDS.toNanos(1_000)) {
        samples.removeFirst();
      }
      long lastSecond = total - samples.peekFirst()[1];
      long lastTenth = total;
      for (long[] sample : samples) {
        if (now - sample[0] <= TimeUnit.MILLISECONDS.toNanos(100)) {
          lastTenth = total - sample[1];
          break;
        }
      }
      boolean fullSecond = now - start >= TimeUnit.MILLISECONDS.toNanos(1_000);
      if (fullSecond && lastSecond >= limit && lastTenth == 0) {
        return true;
      }
      Thread.sleep(2);
    }
    return false;
  }

  private static void drive(Node node, long firstDue, long intervalNanos, AtomicBoolean stop,
      LongAdder admitted) {
    long due = firstDue;
    while (!stop.get()) {
      for (long now; (now = System.nanoTime()) - due < 0; ) {
        LockSupport.parkNanos(due - now);
      }
      try {
        long t0 = System.currentTimeMillis();
        Decision d = node.limiter.tryAcquire("hot");
        long t1 = System.currentTimeMillis();
        node.decisions++;
        if (d.allowed() && node.admittedCount < node.before.length) {
          node.before[node.admittedCount] = t0;
          node.after[node.admittedCount] = t1;
          node.byLocal[node.admittedCount] = Timeline.engineIndex(d) == Timeline.LOCAL;
          node.admittedCount++;
        }
        if (d.allowed()) {
          admitted.increment();
        }
      } catch (RuntimeException e) {
        node.errors.increment();
        if (node.firstError == null) {
          node.firstError = e.toString();
        }
      }
      due += intervalNanos;
    }
  }

  private static Result analyse(List<Node> nodes, int n, long limit, boolean leasing,
      double perNode,
      long originMillis, long killAt, long restartAt, long stopAt, boolean killTargeted) {
    int span = (int) stopAt + 2;
    long[] p0 = new long[span + 1]; // counts by "before" ms, then prefix sums
    long[] p1 = new long[span + 1]; // by "after" ms
    List<long[]> longCalls = new ArrayList<>(); // [before, after] over a window's length
    long[] perPane = new long[span / (int) PANE_MILLIS + 1];
    long[] localPerPane = new long[perPane.length];
    long decisions = 0;
    long errors = 0;
    String firstError = null;
    long[] tripAt = new long[n];
    long[] recoveredAt = new long[n];
    for (int i = 0; i < n; i++) {
      Node node = nodes.get(i);
      for (int a = 0; a < node.admittedCount; a++) {
        int t0 = (int) Math.max(0, Math.min(span - 1, node.before[a] - originMillis));
        int t1 = (int) Math.max(t0, Math.min(span - 1, node.after[a] - originMillis));
        p0[t0 + 1]++;
        p1[t1 + 1]++;
        if (t1 - t0 >= WINDOW_MILLIS) {
          longCalls.add(new long[] {t0, t1});
        }
        perPane[t1 / (int) PANE_MILLIS]++;
        if (node.byLocal[a]) {
          localPerPane[t1 / (int) PANE_MILLIS]++;
        }
      }
      decisions += node.decisions;
      errors += node.errors.sum();
      firstError = firstError != null ? firstError : node.firstError;
      tripAt[i] = node.tripped.get() == Long.MIN_VALUE ? -1 : node.tripped.get() - originMillis;
      recoveredAt[i] = node.recovered.get() == Long.MIN_VALUE ? -1
          : node.recovered.get() - originMillis;
    }
    for (int t = 1; t <= span; t++) {
      p0[t] += p0[t - 1];
      p1[t] += p1[t - 1];
    }
    long lastTrip = Long.MIN_VALUE;
    long lastRecovery = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      lastTrip = Math.max(lastTrip, tripAt[i]);
      lastRecovery = Math.max(lastRecovery, recoveredAt[i] < 0 ? stopAt : recoveredAt[i]);
    }
    if (lastTrip < 0) {
      lastTrip = restartAt; // no node tripped: every window after the kill is an edge
    }
    String[] classes = {"before", "trip edge", "outage", "recovery edge", "after"};
    long outageBound = n * Math.max(1, limit / n);
    long[] bounds = {limit, 2 * limit, outageBound, 2 * limit, limit};
    int[] aligned = new int[classes.length];
    long[] certainMax = new long[classes.length];
    long[] certainAt = new long[classes.length];
    long[] possibleMax = new long[classes.length];
    long[] possibleAt = new long[classes.length];
    long[] anyMax = new long[classes.length];
    long offset = Math.floorMod(-originMillis, PANE_MILLIS); // t of the first pane boundary
    for (long a = 1; a + WINDOW_MILLIS <= stopAt; a++) {
      long b = a + WINDOW_MILLIS;
      int c = classify(a, b, killAt, lastTrip, restartAt, lastRecovery);
      long possible = p0[(int) b] - p1[(int) a];
      anyMax[c] = Math.max(anyMax[c], possible);
      if (Math.floorMod(a - offset, PANE_MILLIS) != 0) {
        continue;
      }
      long certain = p1[(int) b] - p0[(int) a];
      for (long[] call : longCalls) {
        if (call[0] < a && call[1] >= b) {
          certain++;
        }
      }
      aligned[c]++;
      if (certain > certainMax[c]) {
        certainMax[c] = certain;
        certainAt[c] = a;
      }
      if (possible > possibleMax[c]) {
        possibleMax[c] = possible;
        possibleAt[c] = a;
      }
    }
    List<WindowMax> windows = new ArrayList<>();
    for (int c = 0; c < classes.length; c++) {
      windows.add(new WindowMax(classes[c], bounds[c], aligned[c], certainMax[c], certainAt[c],
          possibleMax[c], possibleAt[c], anyMax[c]));
    }
    List<List<Map<String, Object>>> transitions = new ArrayList<>();
    for (Node node : nodes) {
      List<Map<String, Object>> list = new ArrayList<>();
      for (Object[] t : node.transitions) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("atMillis", (Long) t[0] - originMillis);
        m.put("from", t[1].toString());
        m.put("to", t[2].toString());
        m.put("reason", t[3]);
        list.add(m);
      }
      transitions.add(list);
    }
    return new Result(n, limit, leasing, perNode, killAt, tripAt, restartAt, recoveredAt, stopAt,
        windows, perPane, localPerPane, decisions, errors, firstError, transitions, killTargeted);
  }

  /** The class of the window {@code [start, end)}: see the design note. */
  private static int classify(long start, long end, long kill, long lastTrip, long restart,
      long lastRecovery) {
    if (end <= kill) {
      return 0;
    }
    if (start < lastTrip) {
      return 1;
    }
    if (end <= restart) {
      return 2;
    }
    if (start < lastRecovery) {
      return 3;
    }
    return 4;
  }
}
