package io.windowpane.bench.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.etcd.EtcdEngine;
import io.windowpane.redis.RedisEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One client JVM of {@link LeasingLoadBenchmark}: N caller threads in a closed loop of blocking
 * decisions on one Redis, from a common start instant (so the JVMs of a run overlap), for a
 * warmup and a measured interval. Prints one line,
 * {@code RESULT decisions allowed leases returnedPermits localHitRatio errors}, counting the
 * measured interval (errors: decisions that failed with a {@code WindowpaneException}, all
 * intervals); with an output file it also writes, for the overshoot check, two lines per
 * millisecond {@code a} from the start instant: how many allowed decisions certainly fell in the
 * 1,000 ms window {@code [a, a + 1000)} (this JVM's clock read before the call was at least
 * {@code a}, and read after the answer less than {@code a + 1000}) and how many possibly did
 * (the two intervals overlap). A decision happens between those two reads, so the true count of
 * every window lies between the two figures; counts of several JVMs on one machine add up.
 *
 * <p>Arguments: uri (Redis, or an etcd endpoint for the {@code etcd-} contenders), contender
 * ({@code incr}, {@code plain}, {@code leased}, {@code etcd-plain}, {@code etcd-leased}), algorithm
 * ({@code panes} or {@code log}, 1 s window, panes of 100 ms), keys (1 or more), threads, warmup
 * ms, measured ms, limit per second, namespace, start instant (epoch ms), output file or
 * {@code -}.
 */
public final class LeasingNode {

  private LeasingNode() {}

  public static void main(String[] args) throws Exception {
    java.util.logging.Logger.getLogger("io.lettuce").setLevel(java.util.logging.Level.WARNING);
    String uri = args[0];
    String contender = args[1];
    String algorithm = args[2];
    int keyCount = Integer.parseInt(args[3]);
    int threads = Integer.parseInt(args[4]);
    long warmup = Long.parseLong(args[5]);
    long measured = Long.parseLong(args[6]);
    long limit = Long.parseLong(args[7]);
    String namespace = args[8];
    long start = Long.parseLong(args[9]);
    Path out = args[10].equals("-") ? null : Path.of(args[10]);

    String[] keys = new String[keyCount];
    for (int i = 0; i < keyCount; i++) {
      keys[i] = keyCount == 1 ? "hot" : "k" + i;
    }
    WindowSpec spec = algorithm.equals("log") ? WindowSpec.log(Duration.ofSeconds(1))
        : WindowSpec.panes(Duration.ofSeconds(1), 10);
    Quota quota = Quota.of(Limit.of(limit, spec));
    Decider decider;
    AutoCloseable resource;
    RateLimiter limiter = null;
    if (contender.equals("incr")) {
      RedisClient client = LettuceClients.create(uri);
      StatefulRedisConnection<String, String> connection = client.connect();
      RedisCommands<String, String> commands = connection.sync();
      String[] named = Namespaced.keys(namespace + ":", keys);
      decider = k -> {
        commands.incr(named[k]);
        return true;
      };
      resource = () -> {
        connection.close();
        LettuceClients.shutdown(client);
      };
    } else {
      Windowpane wp = contender.startsWith("etcd-")
          ? Windowpane.using(EtcdEngine.builder().endpoints(uri).namespace(namespace)
              .timeout(LettuceClients.COMMAND_TIMEOUT).build())
          : Windowpane.using(RedisEngine.builder().uri(uri)
              .timeout(LettuceClients.COMMAND_TIMEOUT).build());
      limiter = wp.limiter(namespace, contender.endsWith("leased")
          ? quota.withLeasing(Leasing.defaults()) : quota);
      RateLimiter l = limiter;
      decider = k -> l.tryConsume(keys[k], 1);
      resource = wp;
    }

    KeySet keySet = new KeySet(keyCount == 1 ? "hot-key" : keyCount + "-keys", keys);
    int span = (int) (warmup + measured + 2_000);
    // difference arrays over the window start a: +1 where a decision's range of a begins, -1
    // after it ends; certain: a in [after - 999, now]; possible: a in [now - 999, after]
    AtomicLongArray certain = out == null ? null : new AtomicLongArray(span + 1);
    AtomicLongArray possible = out == null ? null : new AtomicLongArray(span + 1);
    long measureFrom = start + warmup;
    long end = measureFrom + measured;
    long[] decisions = new long[threads];
    long[] allowed = new long[threads];
    long[] errors = new long[threads];
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      int[] sequence = keySet.sequence(t);
      Thread thread = new Thread(() -> {
        int i = 0;
        while (System.currentTimeMillis() < start) {
          Thread.onSpinWait();
        }
        for (;;) {
          long now = System.currentTimeMillis();
          if (now >= end) {
            return;
          }
          boolean ok;
          try {
            ok = decider.decide(sequence[i++ & (sequence.length - 1)]);
          } catch (WindowpaneException e) {
            ok = false; // a timeout or give-up: counted, and the loop goes on
            errors[me]++;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          long after = System.currentTimeMillis();
          if (ok && certain != null && after - start < span) {
            mark(certain, after - 999 - start, now - start);
            mark(possible, now - 999 - start, after - start);
          }
          if (now >= measureFrom) {
            decisions[me]++;
            if (ok) {
              allowed[me]++;
            }
          }
        }
      }, "caller-" + t);
      callers.add(thread);
    }
    long wait = start - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait); // the benchmark's common start, not a synchronization of test threads
    }
    for (Thread t : callers) {
      t.start();
    }
    for (Thread t : callers) {
      t.join();
    }
    long sumDecisions = 0;
    long sumAllowed = 0;
    long sumErrors = 0;
    for (int t = 0; t < threads; t++) {
      sumDecisions += decisions[t];
      sumAllowed += allowed[t];
      sumErrors += errors[t];
    }
    LeaseStats stats = limiter == null ? null : limiter.leaseStats().orElse(null);
    resource.close();
    if (certain != null) {
      StringBuilder sb = new StringBuilder();
      long c = 0;
      long p = 0;
      for (int a = 0; a < span; a++) {
        c += certain.get(a);
        p += possible.get(a);
        sb.append(c).append(' ').append(p).append('\n');
      }
      try {
        Files.writeString(out, sb.toString());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    System.out.printf(Locale.ROOT, "RESULT %d %d %d %d %.6f %d%n", sumDecisions, sumAllowed,
        stats == null ? 0 : stats.leases(), stats == null ? 0 : stats.returnedPermits(),
        stats == null ? 0 : stats.localHitRatio(), sumErrors);
  }

  /** Adds 1 to every window start in {@code [from, to]} (clipped to the array). */
  private static void mark(AtomicLongArray diff, long from, long to) {
    long lo = Math.max(0, from);
    long hi = Math.min(diff.length() - 2, to);
    if (lo <= hi) {
      diff.incrementAndGet((int) lo);
      diff.decrementAndGet((int) hi + 1);
    }
  }

  /** One decision for key number {@code k}: allowed (or counted). */
  private interface Decider {
    boolean decide(int k) throws Exception;
  }
}
