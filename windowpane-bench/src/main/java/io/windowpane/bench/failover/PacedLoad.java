package io.windowpane.bench.failover;

import io.windowpane.Decision;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/*
 * Design note: constant offered load, not a closed loop. Each of the T threads has a schedule of
 * its own, one call every T / rate seconds (staggered so the threads do not start together),
 * and parks until each call is due. A call that returns late does not move the schedule: the
 * next calls start at once until the thread is back on time (so a stall shows as a burst after
 * it, and in the latency "from schedule", as it would for requests queued behind a stuck
 * thread). A thread more than MAX_BEHIND behind drops the calls it missed (counted) instead of
 * bursting for seconds. The latency reported as "decision latency" is the call's own time,
 * tryAcquire only; the latency from schedule adds the wait behind earlier calls.
 *
 * One call = tryAcquire(key) on the limiter, then add(key) on the counter, the key drawn from a
 * precomputed per-thread sequence (no random numbers or strings in the loop).
 */

/** T paced threads: tryAcquire then add, at a fixed total rate, recorded in a Timeline. */
final class PacedLoad implements AutoCloseable {

  private static final long MAX_BEHIND_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int SEQUENCE = 1 << 16;

  private final RateLimiter limiter;
  private final WindowCounter counter;
  private final String[] keys;
  private final Timeline timeline;
  private final Tally tally;
  private final long intervalNanos;
  private final List<Thread> threads = new ArrayList<>();
  private final LongAdder dropped = new LongAdder();
  private volatile boolean stop;

  PacedLoad(RateLimiter limiter, WindowCounter counter, String[] keys, int threadCount,
      int ratePerSecond, Timeline timeline, Tally tally) {
    this.limiter = limiter;
    this.counter = counter;
    this.keys = keys;
    this.timeline = timeline;
    this.tally = tally;
    this.intervalNanos = Math.max(1, TimeUnit.SECONDS.toNanos(threadCount) / ratePerSecond);
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
    for (int t = 0; t < threadCount; t++) {
      int[] sequence = sequence(t, keys.length);
      long first = start + intervalNanos * t / threadCount;
      Thread thread = new Thread(() -> run(sequence, first), "drill-caller-" + t);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
  }

  private static int[] sequence(int thread, int keys) {
    int[] s = new int[SEQUENCE];
    SplittableRandom random = new SplittableRandom(0xD121_0000L + thread);
    for (int i = 0; i < s.length; i++) {
      s[i] = random.nextInt(keys);
    }
    return s;
  }

  private void run(int[] sequence, long first) {
    long due = first;
    for (int i = 0; !stop; i++) {
      long now = System.nanoTime();
      while (due - now > 0) {
        LockSupport.parkNanos(due - now);
        if (stop) {
          return;
        }
        now = System.nanoTime();
      }
      if (now - due > MAX_BEHIND_NANOS) {
        long missed = (now - due) / intervalNanos;
        dropped.add(missed);
        due += missed * intervalNanos;
      }
      int k = sequence[i & (SEQUENCE - 1)];
      String key = keys[k];
      long t0 = System.nanoTime();
      Decision d = null;
      Throwable error = null;
      try {
        d = limiter.tryAcquire(key);
      } catch (RuntimeException e) {
        error = e;
      }
      long t1 = System.nanoTime();
      timeline.decision(due, t0, t1, d, error);
      if (d != null) {
        tally.decision(k, t0, t1, d);
      }
      boolean tripped = !timeline.primaryUp();
      try {
        counter.add(key);
        tally.added(k, t1, System.nanoTime(), tripped);
      } catch (RuntimeException e) {
        timeline.addFailed(System.nanoTime(), e);
      }
      due += intervalNanos;
    }
  }

  /** Scheduled calls skipped because their thread was more than 1 s behind. */
  long dropped() {
    return dropped.sum();
  }

  /** Stops the threads and waits for their last calls (each bounded by the chain's timeouts). */
  @Override
  public void close() throws InterruptedException {
    stop = true;
    for (Thread t : threads) {
      LockSupport.unpark(t);
    }
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(10));
    }
  }
}
