package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.MillisClock;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spi.CounterStore;
import io.windowpane.spi.LimiterStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Adds and replays on the same keys of one etcd engine at once, as a failover chain's recovery
 * does (its replays race the calls that already reach etcd again), with a tally of what etcd
 * acknowledged, for the replay concurrency tests.
 *
 * <p>Four threads loop over {@code add} on a pane counter (60 s, 60 panes) and a log counter
 * (60 s), and {@code tryAcquire} on a limiter of both windows, two threads per key. Two threads
 * send waves of 256 replays into the same three stores and keys, as the chain does: unique ids,
 * 1 to 3 events each, at a time up to 20 s behind the clock (into panes behind the head, with
 * empty panes between), every id sent twice at once (a chain resends a replay whose answer it
 * has not seen, and its first try may still be on the key's lane). Every call is waited for, so
 * at the end each key must hold exactly the acknowledged adds plus the replayed events, once.
 */
final class ReplayLoad {

  static final String[] KEYS = {"user:1", "user:2"};
  static final WindowSpec PANES = WindowSpec.panes(Duration.ofSeconds(60), 60);
  static final WindowSpec LOG = WindowSpec.log(Duration.ofSeconds(60));
  /** High enough that nothing is denied (a log limit holds at most 2^20 entries). */
  static final long LIMIT = 1_000_000;
  private static final int WAVE = 256;
  private static final long REPLAY_SPREAD_MILLIS = 20_000;

  final CounterStore panes;
  final CounterStore log;
  final LimiterStore limiter;
  private final MillisClock clock;
  private final Map<String, LongAdder> events = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> logEvents = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> permits = new ConcurrentHashMap<>();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final AtomicLong ids = new AtomicLong();
  private final LongAdder replays = new LongAdder();
  private volatile boolean stop;

  ReplayLoad(EtcdEngine engine, MillisClock clock) {
    String name = "replay-load-" + UUID.randomUUID().toString().substring(0, 8);
    this.panes = engine.counterStore(name, PANES);
    this.log = engine.counterStore(name, LOG);
    this.limiter = engine.limiterStore(name, Quota.of(Limit.of(LIMIT, PANES),
        Limit.of(LIMIT, LOG)));
    this.clock = clock;
    for (String key : KEYS) {
      events.put(key, new LongAdder());
      logEvents.put(key, new LongAdder());
      permits.put(key, new LongAdder());
    }
  }

  /** Runs the load, calls {@code during} on this thread meanwhile, then stops and waits. */
  void run(long seed, Runnable during) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      String key = KEYS[t % KEYS.length];
      threads.add(new Thread(() -> addLoop(key), "adds-" + t));
    }
    for (int t = 0; t < 2; t++) {
      Random random = new Random(seed * 31 + t);
      threads.add(new Thread(() -> replayLoop(random), "replays-" + t));
    }
    threads.forEach(Thread::start);
    try {
      during.run();
    } finally {
      stop = true;
      for (Thread t : threads) {
        t.join(120_000);
      }
    }
  }

  private void addLoop(String key) {
    while (!stop) {
      try {
        panes.add(key, 1);
        events.get(key).increment();
        log.add(key, 1);
        logEvents.get(key).increment();
        if (limiter.tryAcquire(key, 1).allowed()) {
          permits.get(key).increment();
        } else {
          errors.add(new AssertionError("denied under a limit of " + LIMIT));
        }
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
  }

  private void replayLoop(Random random) {
    while (!stop) {
      List<CompletableFuture<Void>> sent = new ArrayList<>();
      List<String> keys = new ArrayList<>();
      List<Long> counts = new ArrayList<>();
      for (int i = 0; i < WAVE; i++) {
        String key = KEYS[random.nextInt(KEYS.length)];
        long n = 1 + random.nextInt(3);
        long at = clock.millis() - (long) (random.nextDouble() * REPLAY_SPREAD_MILLIS);
        String id = "load-" + ids.incrementAndGet();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int copy = 0; copy < 2; copy++) {
          calls.add(panes.replayAsync(key, n, at, id).toCompletableFuture());
          calls.add(log.replayAsync(key, n, at, id).toCompletableFuture());
          calls.add(limiter.replayAsync(key, n, at, id).toCompletableFuture());
        }
        sent.add(CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])));
        keys.add(key);
        counts.add(n);
      }
      for (int i = 0; i < sent.size(); i++) {
        try {
          sent.get(i).get(60, TimeUnit.SECONDS);
          events.get(keys.get(i)).add(counts.get(i));
          logEvents.get(keys.get(i)).add(counts.get(i));
          permits.get(keys.get(i)).add(counts.get(i));
          replays.increment();
        } catch (Exception e) {
          errors.add(e);
        }
      }
    }
  }

  /** Every acknowledged add and replay counted exactly once, in each store and key. */
  void assertExact() {
    assertThat(errors).as("failed calls").isEmpty();
    assertThat(replays.sum()).as("replays acknowledged").isGreaterThan(WAVE);
    for (String key : KEYS) {
      assertThat(panes.count(key)).as(key + " in the pane counter")
          .isEqualTo(events.get(key).sum());
      assertThat(log.count(key)).as(key + " in the log counter")
          .isEqualTo(logEvents.get(key).sum());
      assertThat(LIMIT - limiter.tryAcquire(key, 1).remaining() - 1)
          .as(key + " permits taken from the limiter").isEqualTo(permits.get(key).sum());
    }
  }
}
