package io.windowpane.testkit.failover;

import io.windowpane.Decision;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Constant load on a failover chain for the fault tests: {@code threads} threads, each taking
 * one permit of a limiter and adding one event to a counter, for one of a few keys, about once
 * a millisecond, until stopped. It keeps what the assertions need: every exception, the longest
 * wait, and for each key the decisions allowed by each engine, split at a mark (the fault), with
 * the calls that waited past the call timeout (they may have landed on the primary too).
 * Used by the fault tests of the Redis and etcd modules.
 */
public final class FailoverLoad implements AutoCloseable {

  public static final String[] KEYS = {"user:1", "user:2"};

  /** Allowed decisions of one key, by who answered and when. */
  public static final class Tally {
    public final LongAdder adds = new LongAdder();
    public final LongAdder slowAdds = new LongAdder();
    public final LongAdder allowed = new LongAdder();
    public final LongAdder slowAllowed = new LongAdder();
    public final LongAdder allowedByLocal = new LongAdder();
    public final LongAdder allowedByPrimaryAfterMark = new LongAdder();
    /** Allowed decisions that were in flight at the mark: started before it, answered after. */
    public final LongAdder allowedInFlightAtMark = new LongAdder();
  }

  public final Map<String, Tally> tallies = new ConcurrentHashMap<>();
  public final List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
  public final AtomicLong maxWaitNanos = new AtomicLong();
  public final AtomicLong firstLocalAfterMarkNanos = new AtomicLong(Long.MAX_VALUE);
  private volatile long markNanos = Long.MAX_VALUE;
  private volatile boolean stop;
  private final List<Thread> threads = new ArrayList<>();
  private final long slowNanos;
  private final String primary;

  /**
   * Starts {@code threadCount} threads on {@code limiter} and {@code counter} of a chain whose
   * first member is named {@code primary}; calls waiting {@code slowMillis} or more count as
   * slow.
   */
  public FailoverLoad(RateLimiter limiter, WindowCounter counter, String primary,
      int threadCount, long slowMillis) {
    this.slowNanos = slowMillis * 1_000_000;
    this.primary = primary;
    for (String key : KEYS) {
      tallies.put(key, new Tally());
    }
    for (int t = 0; t < threadCount; t++) {
      String key = KEYS[t % KEYS.length];
      Thread thread = new Thread(() -> run(limiter, counter, key), "load-" + t);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
  }

  /** Marks now as the fault: later decisions count as after it. */
  public long mark() {
    markNanos = System.nanoTime();
    return markNanos;
  }

  private void run(RateLimiter limiter, WindowCounter counter, String key) {
    Tally tally = tallies.get(key);
    while (!stop) {
      try {
        long t0 = System.nanoTime();
        Decision d = limiter.tryAcquire(key);
        long t1 = System.nanoTime();
        counter.add(key);
        long t2 = System.nanoTime();
        tally.adds.increment();
        if (t2 - t1 >= slowNanos) {
          tally.slowAdds.increment();
        }
        if (d.allowed()) {
          tally.allowed.increment();
          if (t1 - t0 >= slowNanos) {
            tally.slowAllowed.increment();
          }
          String engine = d.engine().orElse("?");
          long mark = markNanos;
          if (t0 <= mark && t1 > mark) {
            tally.allowedInFlightAtMark.increment();
          }
          if (engine.equals("local")) {
            tally.allowedByLocal.increment();
            if (t1 > mark) {
              firstLocalAfterMarkNanos.accumulateAndGet(t1, Math::min);
            }
          } else if (engine.equals(primary) && t0 > mark) {
            tally.allowedByPrimaryAfterMark.increment();
          }
        }
        maxWaitNanos.accumulateAndGet(Math.max(t1 - t0, t2 - t1), Math::max);
        Thread.sleep(1);
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) {
        errors.add(e);
      }
    }
  }

  /** Stops the threads and waits for them. */
  @Override
  public void close() throws InterruptedException {
    stop = true;
    for (Thread t : threads) {
      t.join(10_000);
    }
  }

  /** Polls {@code condition} every 5 ms for at most {@code millis}; fails naming {@code what}. */
  public static void await(String what, java.util.function.BooleanSupplier condition,
      long millis) throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + millis + " ms waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Allowed decisions over every key. */
  public long allowed() {
    return tallies.values().stream().mapToLong(t -> t.allowed.sum()).sum();
  }

  /** Decisions allowed by the local engine over every key. */
  public long allowedByLocal() {
    return tallies.values().stream().mapToLong(t -> t.allowedByLocal.sum()).sum();
  }

  /** Decisions started after the mark and allowed by the primary, over every key. */
  public long allowedByPrimaryAfterMark() {
    return tallies.values().stream().mapToLong(t -> t.allowedByPrimaryAfterMark.sum()).sum();
  }
}
