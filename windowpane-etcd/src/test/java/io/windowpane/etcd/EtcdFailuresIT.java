package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A dead or stopped etcd: calls fail within the timeout with the engine's exceptions, never hang. */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
class EtcdFailuresIT {

  private static final Duration TIMEOUT = Duration.ofMillis(600);

  private static String deadEndpoint() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return "http://127.0.0.1:" + s.getLocalPort(); // closed again: nobody listens there
    }
  }

  @Test
  void nothingListening_callsFailWithinTheTimeout() throws Exception {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    EtcdEngine engine = TestEngines.builder(List.of(deadEndpoint()), clock).timeout(TIMEOUT)
        .build();
    try (Windowpane wp = Windowpane.using(engine)) {
      WindowCounter counter = wp.counter("dead", WindowSpec.log(Duration.ofSeconds(1)));
      long start = System.nanoTime();
      assertThatThrownBy(() -> counter.add("k")).isInstanceOf(WindowpaneTimeoutException.class)
          .hasMessageContaining("within 600 ms")
          .satisfies(e -> assertThat(e.getCause()).as("the last failure").isNotNull());
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      CompletableFuture<Long> async = counter.addAsync("k", 1).toCompletableFuture();
      assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(WindowpaneTimeoutException.class);
      LimiterStore limiter = engine.limiterStore("dead", Quota.of(Limit.of(5,
          WindowSpec.log(Duration.ofSeconds(1)))));
      start = System.nanoTime();
      CompletableFuture<?> lease = limiter.leaseAsync("k", 1, 5).toCompletableFuture();
      CompletableFuture<?> release = limiter.releaseAsync("k", 1, clock.millis(), "r")
          .toCompletableFuture();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("async: the caller goes on")
          .isLessThan(Duration.ofMillis(300));
      for (CompletableFuture<?> f : List.of(lease, release)) {
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(WindowpaneTimeoutException.class);
      }
      assertThatThrownBy(() -> limiter.lease("k", 1, 5))
          .isInstanceOf(WindowpaneTimeoutException.class);
      CompletableFuture<Void> probe = engine.probe().toCompletableFuture();
      assertThatThrownBy(() -> probe.get(5, TimeUnit.SECONDS))
          .hasCauseInstanceOf(WindowpaneException.class);
    }
  }

  @Test
  void etcdStoppedMidRun_callsFailWithinTheTimeout() {
    ManualClock clock = ManualClock.at(ConformanceBase.REALISTIC);
    EtcdServer etcd = EtcdServer.start();
    try (Windowpane wp = Windowpane.using(TestEngines.builder(List.of(etcd.endpoint()), clock)
        .timeout(TIMEOUT).build())) {
      RateLimiter limiter = wp.limiter("stopped", Limit.of(5, WindowSpec.log(
          Duration.ofSeconds(10))));
      assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
      etcd.close();
      long start = System.nanoTime();
      assertThatThrownBy(() -> limiter.tryAcquire("k", 1))
          .isInstanceOf(WindowpaneTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    } finally {
      etcd.close();
    }
  }
}
