package io.windowpane.testkit.leasing;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.conformance.ReferenceModel;
import io.windowpane.testkit.conformance.Together;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Hot-key leasing cases that every leasing engine runs against its real backend
 * (docs/leasing.md): several nodes in one JVM, a node in a JVM of its own that is killed while it
 * holds a slice, and two JVMs sharing one limit. Every node of a case reads the same
 * {@link ManualClock} (the engine's time and the lease deadlines), so each phase's exact room is
 * known; the totals are checked exactly: never more than the room (panes, weighted windows, and
 * the log with a 1 ms lease lifetime admit exactly what they admit without leasing), and after
 * the nodes return their slices every permit is either spent once or room again.
 *
 * <p>An engine supplies {@code nodes}: a new {@link Windowpane} (its own connections, as a
 * separate node would have) whose engine reads the given clock, and for the two-JVM cases a main
 * class that calls {@link #nodeMain}.
 */
public final class LeasingScenarios {

  private static final Duration SECOND = Duration.ofSeconds(1);

  /** The hot key's limit in the multi-JVM cases. */
  public static final long LIMIT = 5_000;

  private LeasingScenarios() {}

  /** Leasing on the shared clock, with a 1 ms log lifetime (exact for the log too). */
  public static Quota leasing(Quota quota, ManualClock clock) {
    return quota.withLeasing(Leasing.defaults().clock(clock).logLifetime(Duration.ofMillis(1)));
  }

  private static Quota multiJvmQuota() {
    return Quota.of(Limit.of(LIMIT, WindowSpec.panes(SECOND, 10)));
  }

  /**
   * Three nodes, four threads each, on one key of one limit per algorithm, in phases at fixed
   * instants: each phase admits exactly the room the reference model leaves (never more; and
   * since every node keeps asking until its requests run out, no room is left unused but the
   * one permit a pair cannot fit); at the end the nodes return their slices and a node without
   * leasing finds exactly the room the model leaves.
   */
  public static void manyNodes_admitExactlyTheRoom(Function<ManualClock, Windowpane> nodes)
      throws Exception {
    int nodeCount = 3;
    int threadsPerNode = 4;
    ExecutorService pool = Executors.newFixedThreadPool(nodeCount * threadsPerNode);
    try {
      for (WindowSpec spec : List.of(WindowSpec.panes(SECOND, 10), WindowSpec.weighted(SECOND),
          WindowSpec.log(SECOND))) {
        ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC + 3);
        // each node's own demand (4 x 200 requests of 1.5 permits on average, 1,200) passes
        // the limit, so no node runs out of requests while its slice still holds room
        Limit limit = Limit.of(1_000, spec);
        String name = "lease-many-" + spec.algorithm() + "-" + System.nanoTime();
        List<Windowpane> open = new ArrayList<>();
        List<RateLimiter> limiters = new ArrayList<>();
        for (int n = 0; n < nodeCount; n++) {
          Windowpane wp = nodes.apply(clock);
          open.add(wp);
          limiters.add(wp.limiter(name, leasing(Quota.of(limit), clock)));
        }
        ReferenceModel model = new ReferenceModel();
        Random random = new Random(15);
        try {
          // 5 phases 150-500 ms apart (1.6 s on average): the first phases' grants leave the
          // 1 s window while the nodes still hold slices
          for (int phase = 0; phase < 5; phase++) {
            long t = clock.millis();
            AtomicLong next = new AtomicLong();
            long allowed = Together.sum(pool, nodeCount * threadsPerNode, Duration.ofSeconds(60),
                () -> {
                  RateLimiter mine = limiters.get((int) (next.getAndIncrement() % nodeCount));
                  long sum = 0;
                  for (int i = 0; i < 200; i++) {
                    long permits = 1 + (i % 2);
                    if (mine.tryConsume("hot", permits)) {
                      sum += permits;
                    }
                  }
                  return sum;
                });
            long room = limit.permits() - model.count("hot", spec, t);
            assertThat(allowed).as("%s phase %d: never more than the room", spec, phase)
                .isLessThanOrEqualTo(room);
            assertThat(allowed).as("%s phase %d: no room left unused", spec, phase)
                .isGreaterThanOrEqualTo(room - nodeCount);
            model.record("hot", t, allowed);
            clock.advance(150 + random.nextInt(350));
          }
          long t = clock.millis();
          for (RateLimiter l : limiters) {
            assertThat(l.leaseStats().orElseThrow().failedReturns()).isZero();
          }
          for (Windowpane wp : open) {
            wp.close(); // returns every unspent slice
          }
          open.clear();
          try (Windowpane plain = nodes.apply(clock)) {
            RateLimiter check = plain.limiter(name, Quota.of(limit));
            assertThat(takeAll(check)).as("%s: every unspent permit came back", spec)
                .isEqualTo(limit.permits() - model.count("hot", spec, t));
          }
        } finally {
          for (Windowpane wp : open) {
            wp.close();
          }
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Every permit {@code limiter} admits now, until a single permit is denied; how many were
   * allowed. After each allowed single permit its {@code remaining} is asked for in one request,
   * which an all-or-nothing limit allows exactly when that many single permits would each be
   * allowed: a few calls instead of one per permit (thousands of round trips on a remote engine).
   */
  private static long takeAll(RateLimiter limiter) {
    long n = 0;
    Decision d;
    while ((d = limiter.tryAcquire("hot", 1)).allowed()) {
      n++;
      long rest = d.remaining();
      if (rest > 0 && limiter.tryAcquire("hot", rest).allowed()) {
        n += rest;
      }
    }
    return n;
  }

  /**
   * The body of a node main in a JVM of its own. Arguments: the node's {@link Windowpane} on
   * {@code clock}, the limiter's name, and the mode: {@code hold} spends 2,000 single permits
   * from four threads (less than the limit), then
   * prints {@code LEASED allowed leasedPermits returnedPermits engineDecisions} and blocks until killed;
   * {@code spend} prints {@code READY}, waits for a line on standard input, spends from four
   * threads, closes the Windowpane (returning its unspent slices) and prints
   * {@code DONE allowed leasedPermits returnedPermits failedReturns}.
   */
  public static void nodeMain(Windowpane wp, ManualClock clock, String name, String mode)
      throws Exception {
    RateLimiter limiter = wp.limiter(name, leasing(multiJvmQuota(), clock));
    if (mode.equals("spend")) {
      System.out.println("READY");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    long allowed;
    try {
      allowed = spend(pool, limiter, 4, mode.equals("hold") ? 500 : 1_500);
    } finally {
      pool.shutdownNow();
    }
    LeaseStats stats = limiter.leaseStats().orElseThrow();
    if (mode.equals("hold")) {
      System.out.println("LEASED " + allowed + " " + stats.leasedPermits() + " "
          + stats.returnedPermits() + " " + stats.engineDecisions());
      System.out.flush();
      new java.util.concurrent.CountDownLatch(1).await(); // until killed
    }
    wp.close();
    stats = limiter.leaseStats().orElseThrow();
    System.out.println("DONE " + allowed + " " + stats.leasedPermits() + " "
        + stats.returnedPermits() + " " + stats.failedReturns());
    System.out.flush();
  }

  private static long spend(ExecutorService pool, RateLimiter limiter, int threads, int each)
      throws Exception {
    return Together.sum(pool, threads, Duration.ofSeconds(60), () -> {
      long sum = 0;
      for (int i = 0; i < each; i++) {
        if (limiter.tryConsume("hot", 1)) {
          sum++;
        }
      }
      return sum;
    });
  }

  private static Process start(Class<?> nodeMain, String target, long startMillis, String name,
      String mode) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(List.of(java.toString(), "-cp",
        System.getProperty("java.class.path"), nodeMain.getName(), target,
        Long.toString(startMillis), name, mode))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  private static long[] numbers(String line, String tag) {
    assertThat(line).as("the child's report").startsWith(tag + " ");
    String[] parts = line.substring(tag.length() + 1).split(" ");
    long[] out = new long[parts.length];
    for (int i = 0; i < parts.length; i++) {
      out[i] = Long.parseLong(parts[i]);
    }
    return out;
  }

  /**
   * A node in a JVM of its own ({@code nodeMain}: arguments {@code target}, the clock's start,
   * the limiter's name, the mode; it calls {@link #nodeMain}) spends from a leasing limiter and
   * is killed by its PID while it still holds a slice. Its grants stay recorded: at the same
   * instant a node without leasing finds exactly the limit less what the child leased and did
   * not return (its unspent rest is lost to the window, never spent twice), and the whole limit
   * once the window has let the grants go.
   */
  public static void killedNode_itsSliceIsNeverSpentTwice(Class<?> nodeMain, String target,
      Function<ManualClock, Windowpane> nodes) throws Exception {
    long start = ConformanceBase.REALISTIC + 3;
    String name = "lease-killed-" + System.nanoTime();
    Process child = start(nodeMain, target, start, name, "hold");
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      long[] report = numbers(out.readLine(), "LEASED");
      long allowed = report[0];
      long leased = report[1];
      long returned = report[2];
      long engineCalls = report[3];
      assertThat(allowed).as("the child's requests all fit").isEqualTo(2_000);
      // a request asked as a slice of just itself goes to the engine as tryAcquire, outside
      // leasedPermits but among the engine calls
      assertThat(leased - returned + engineCalls).as("its grants cover what it spent")
          .isGreaterThanOrEqualTo(allowed);
      ProcessHandle.of(child.pid()).ifPresent(ProcessHandle::destroyForcibly);
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();

      ManualClock clock = ManualClock.at(start);
      try (Windowpane plain = nodes.apply(clock)) {
        RateLimiter check = plain.limiter(name, multiJvmQuota());
        long rest = takeAll(check);
        assertThat(rest + allowed).as("nothing spent twice").isLessThanOrEqualTo(LIMIT);
        // Exactly LIMIT - (leased - returned) when every request was answered from a slice;
        // under load a request that waited 4 rounds for a lease asks the engine itself
        // (tryAcquire, outside leasedPermits), and a return counted by the child may still have
        // been on its way when it was killed. So the engine holds at least what the child spent
        // and at most its grants plus its own engine calls: never spent twice, never more.
        assertThat(rest).as("the killed node's grants stay counted, unspent ones lost")
            .isBetween(LIMIT - (leased + engineCalls), LIMIT - allowed);
        clock.advance(SECOND.toMillis() + 100); // W + r: the grants have aged out
        assertThat(takeAll(check)).as("the whole limit once the window let them go")
            .isEqualTo(LIMIT);
      }
    } finally {
      child.destroyForcibly();
    }
  }

  /**
   * A node in a JVM of its own ({@code nodeMain}, as above) and four threads of this JVM spend
   * from one leasing limiter at the same instant: together they admit at most the limit, and
   * once both have returned their slices a node without leasing finds exactly the rest.
   */
  public static void twoJvms_shareOneLimit(Class<?> nodeMain, String target,
      Function<ManualClock, Windowpane> nodes) throws Exception {
    long start = ConformanceBase.REALISTIC + 3;
    String name = "lease-two-" + System.nanoTime();
    Process child = start(nodeMain, target, start, name, "spend");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("READY");
      ManualClock clock = ManualClock.at(start);
      long mine;
      LeaseStats stats;
      try (Windowpane wp = nodes.apply(clock)) {
        RateLimiter limiter = wp.limiter(name, leasing(multiJvmQuota(), clock));
        Writer go = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
        go.write("go\n");
        go.flush();
        mine = spend(pool, limiter, 4, 1_500); // with the child's: 12,000 asks for 5,000
        stats = limiter.leaseStats().orElseThrow();
      } // returns this node's unspent slices
      long[] report = numbers(out.readLine(), "DONE");
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      long theirs = report[0];
      assertThat(report[3]).as("the child's returns all landed").isZero();
      assertThat(stats.failedReturns()).isZero();
      assertThat(mine + theirs).as("both JVMs together: never more than the limit")
          .isLessThanOrEqualTo(LIMIT);
      try (Windowpane plain = nodes.apply(ManualClock.at(start))) {
        assertThat(takeAll(plain.limiter(name, multiJvmQuota())))
            .as("every permit spent once or returned").isEqualTo(LIMIT - mine - theirs);
      }
    } finally {
      pool.shutdownNow();
      child.destroyForcibly();
    }
  }
}
