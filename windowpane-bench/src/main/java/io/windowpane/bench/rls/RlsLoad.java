package io.windowpane.bench.rls;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A bounded closed-loop load client of the Envoy rate limit service ({@code windowpane serve
 * --grpc-port}): N threads, each with a blocking stub on one shared HTTP/2 channel, call
 * {@code ShouldRateLimit} back to back for a fixed time after a warm-up, and it prints decisions
 * per second, OK and OVER_LIMIT counts and the latency percentiles (HdrHistogram, microseconds)
 * as one line of key=value pairs. The target must be a loopback address; threads are 1 to 64 and
 * the time 1 to 120 s, so the load always stops by itself.
 *
 * <pre>
 * java -cp windowpane-bench/target/benchmarks.jar io.windowpane.bench.rls.RlsLoad \
 *     --port 8081 --threads 32 --seconds 20 --warmup 5 --scenario hot
 * </pre>
 *
 * Scenarios (rules of windowpane-bench/server-load/rls/bench.yaml, domain {@code bench}):
 * {@code hot}, one descriptor {@code (user, u1)} of a rule out of reach (every call OK);
 * {@code spread}, {@code (user, u<random of 10,000>)}, seeded; {@code over}, one descriptor of a
 * rule of 100 per second (nearly every call OVER_LIMIT); {@code two}, two descriptors per call,
 * the hot one and {@code (route, /api)}.
 */
public final class RlsLoad {

  private RlsLoad() {}

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 0;
    int threads = 32;
    int seconds = 20;
    int warmup = 5;
    String scenario = "hot";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--host": host = args[i + 1]; break;
        case "--port": port = Integer.parseInt(args[i + 1]); break;
        case "--threads": threads = Integer.parseInt(args[i + 1]); break;
        case "--seconds": seconds = Integer.parseInt(args[i + 1]); break;
        case "--warmup": warmup = Integer.parseInt(args[i + 1]); break;
        case "--scenario": scenario = args[i + 1]; break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (!InetAddress.getByName(host).isLoopbackAddress()) {
      throw new IllegalArgumentException("host must be a loopback address, was " + host);
    }
    check("port", port, 1, 65_535);
    check("threads", threads, 1, 64);
    check("seconds", seconds, 1, 120);
    check("warmup", warmup, 0, 60);
    if (!List.of("hot", "spread", "over", "two").contains(scenario)) {
      throw new IllegalArgumentException("scenario must be hot, spread, over or two, was "
          + scenario);
    }
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    try {
      run(channel, threads, warmup, scenario, false);
      run(channel, threads, seconds, scenario, true);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static void run(ManagedChannel channel, int threads, int seconds, String scenario,
      boolean report) throws InterruptedException {
    if (seconds == 0) {
      return;
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    AtomicLong ok = new AtomicLong();
    AtomicLong over = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    List<Histogram> histograms = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long started = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
      histograms.add(h);
      SplittableRandom random = new SplittableRandom(42 + t);
      Thread w = new Thread(() -> {
        RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
            RateLimitServiceGrpc.newBlockingStub(channel);
        while (System.nanoTime() < end) {
          RateLimitRequest request = request(scenario, random);
          long start = System.nanoTime();
          try {
            RateLimitResponse r = stub.withDeadlineAfter(5, TimeUnit.SECONDS)
                .shouldRateLimit(request);
            h.recordValue(Math.min(h.getHighestTrackableValue(),
                (System.nanoTime() - start) / 1_000));
            (r.getOverallCode() == RateLimitResponse.Code.OK ? ok : over).incrementAndGet();
          } catch (RuntimeException e) {
            failed.incrementAndGet();
          }
        }
      }, "rls-load-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    if (!report) {
      return;
    }
    Histogram all = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    histograms.forEach(all::add);
    long calls = ok.get() + over.get();
    System.out.println(String.format(Locale.ROOT,
        "scenario=%s threads=%d seconds=%.1f calls=%d decisions_per_s=%.0f ok=%d over_limit=%d"
            + " failed=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d",
        scenario, threads, elapsed, calls, calls / elapsed, ok.get(), over.get(), failed.get(),
        all.getValueAtPercentile(50), all.getValueAtPercentile(99),
        all.getValueAtPercentile(99.9), all.getMaxValue()));
  }

  private static RateLimitRequest request(String scenario, SplittableRandom random) {
    RateLimitRequest.Builder r = RateLimitRequest.newBuilder().setDomain("bench");
    switch (scenario) {
      case "spread":
        r.addDescriptors(descriptor("user", "u" + random.nextInt(10_000)));
        break;
      case "over":
        r.addDescriptors(descriptor("tight", "t1"));
        break;
      case "two":
        r.addDescriptors(descriptor("user", "u1")).addDescriptors(descriptor("route", "/api"));
        break;
      default:
        r.addDescriptors(descriptor("user", "u1"));
    }
    return r.build();
  }

  private static RateLimitDescriptor descriptor(String key, String value) {
    RateLimitDescriptor.Builder d = RateLimitDescriptor.newBuilder();
    d.addEntriesBuilder().setKey(key).setValue(value);
    return d.build();
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be " + min + " to " + max + ", was "
          + value);
    }
  }
}
