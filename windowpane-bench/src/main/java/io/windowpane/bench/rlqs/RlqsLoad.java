package io.windowpane.bench.rlqs;

import com.google.protobuf.Duration;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A bounded closed-loop load client of the rate limit quota service ({@code windowpane serve
 * --rlqs-port}): N simulated Envoys, each with its own HTTP/2 connection and one
 * {@code StreamRateLimitQuotas} stream, each sending messages of {@code --per-message} bucket
 * reports (cycling over {@code --buckets} bucket ids {@code {name: bench, id: b<i>}}) back to
 * back, the next when the previous is answered. After a warm-up it prints bucket reports per
 * second (each answered with an assignment), messages per second and the latency percentiles
 * of a message (HdrHistogram, microseconds) as one line of key=value pairs. Loopback only;
 * 1 to 64 Envoys, 1 to 120 s, so the load stops by itself.
 *
 * <pre>
 * java -cp windowpane-bench/target/benchmarks.jar io.windowpane.bench.rlqs.RlqsLoad \
 *     --port 8082 --envoys 10 --buckets 1000 --per-message 100 --seconds 20 --warmup 5
 * </pre>
 *
 * The server's buckets: windowpane-bench/server-load/rlqs/bench.yaml (domain {@code bench}).
 */
public final class RlqsLoad {

  private RlqsLoad() {}

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 0;
    int envoys = 10;
    int buckets = 1000;
    int perMessage = 100;
    int seconds = 20;
    int warmup = 5;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--host": host = args[i + 1]; break;
        case "--port": port = Integer.parseInt(args[i + 1]); break;
        case "--envoys": envoys = Integer.parseInt(args[i + 1]); break;
        case "--buckets": buckets = Integer.parseInt(args[i + 1]); break;
        case "--per-message": perMessage = Integer.parseInt(args[i + 1]); break;
        case "--seconds": seconds = Integer.parseInt(args[i + 1]); break;
        case "--warmup": warmup = Integer.parseInt(args[i + 1]); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (!InetAddress.getByName(host).isLoopbackAddress()) {
      throw new IllegalArgumentException("host must be a loopback address, was " + host);
    }
    check("port", port, 1, 65_535);
    check("envoys", envoys, 1, 64);
    check("buckets", buckets, 1, 100_000);
    check("per-message", perMessage, 1, 10_000);
    check("seconds", seconds, 1, 120);
    check("warmup", warmup, 0, 60);
    List<BucketQuotaUsage> usages = new ArrayList<>(buckets);
    for (int b = 0; b < buckets; b++) {
      usages.add(BucketQuotaUsage.newBuilder()
          .setBucketId(BucketId.newBuilder().putBucket("name", "bench").putBucket("id", "b" + b))
          .setNumRequestsAllowed(1 + b % 3).setNumRequestsDenied(b % 2)
          .setTimeElapsed(Duration.newBuilder().setSeconds(1)).build());
    }
    List<Envoy> fleet = new ArrayList<>();
    try {
      for (int e = 0; e < envoys; e++) {
        fleet.add(new Envoy(host, port, usages, perMessage, e * perMessage));
      }
      run(fleet, warmup, false);
      run(fleet, seconds, true);
    } finally {
      for (Envoy e : fleet) {
        e.close();
      }
    }
  }

  private static void run(List<Envoy> fleet, int seconds, boolean report)
      throws InterruptedException {
    if (seconds == 0) {
      return;
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    AtomicLong messages = new AtomicLong();
    AtomicLong reports = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    Histogram latency = new Histogram(60_000_000L, 3);
    List<Thread> threads = new ArrayList<>();
    for (Envoy envoy : fleet) {
      Thread t = new Thread(() -> {
        Histogram mine = new Histogram(60_000_000L, 3);
        while (System.nanoTime() < end) {
          long start = System.nanoTime();
          try {
            int answered = envoy.exchange();
            mine.recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
            messages.incrementAndGet();
            reports.addAndGet(answered);
          } catch (RuntimeException | InterruptedException e) {
            failures.incrementAndGet();
            return;
          }
        }
        synchronized (latency) {
          latency.add(mine);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    if (report) {
      System.out.println(String.format(Locale.ROOT, "envoys=%d seconds=%d reports_per_s=%.0f"
          + " messages_per_s=%.0f failures=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d",
          fleet.size(), seconds, reports.get() / (double) seconds,
          messages.get() / (double) seconds, failures.get(), latency.getValueAtPercentile(50),
          latency.getValueAtPercentile(99), latency.getValueAtPercentile(99.9),
          latency.getMaxValue()));
    }
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was "
          + value);
    }
  }

  /** One simulated Envoy: a connection, a stream, and the next slice of buckets to report. */
  private static final class Envoy {
    private final ManagedChannel channel;
    private final StreamObserver<RateLimitQuotaUsageReports> requests;
    private final SynchronousQueue<Object> answers = new SynchronousQueue<>();
    private final List<BucketQuotaUsage> usages;
    private final int perMessage;
    private int next;
    private boolean first = true;

    Envoy(String host, int port, List<BucketQuotaUsage> usages, int perMessage, int offset) {
      this.usages = usages;
      this.perMessage = perMessage;
      this.next = offset % usages.size();
      channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
      requests = RateLimitQuotaServiceGrpc.newStub(channel).streamRateLimitQuotas(
          new StreamObserver<>() {
            @Override
            public void onNext(RateLimitQuotaResponse value) {
              put(value);
            }

            @Override
            public void onError(Throwable t) {
              put(t);
            }

            @Override
            public void onCompleted() {
              put(new IllegalStateException("the server ended the stream"));
            }
          });
    }

    private void put(Object o) {
      try {
        answers.put(o);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Sends one message; returns the number of bucket actions in its answer. */
    int exchange() throws InterruptedException {
      RateLimitQuotaUsageReports.Builder m = RateLimitQuotaUsageReports.newBuilder();
      if (first) {
        m.setDomain("bench");
        first = false;
      }
      for (int i = 0; i < perMessage; i++) {
        m.addBucketQuotaUsages(usages.get(next));
        next = (next + 1) % usages.size();
      }
      requests.onNext(m.build());
      Object answer = answers.poll(30, TimeUnit.SECONDS);
      if (answer instanceof RateLimitQuotaResponse) {
        return ((RateLimitQuotaResponse) answer).getBucketActionCount();
      }
      throw new IllegalStateException("no answer: " + answer);
    }

    void close() throws InterruptedException {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
