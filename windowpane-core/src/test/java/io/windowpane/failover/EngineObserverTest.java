package io.windowpane.failover;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Decision;
import io.windowpane.Failover;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.EngineObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What an {@link EngineObserver} sees: one call per member asked (a fallback's marked), one
 * decision per decided key, all under the caller's context read on the caller's thread; and
 * that an observer that throws changes no answer.
 */
class EngineObserverTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  private final ManualClock clock = ManualClock.at(-1_700_000_000_000L + 7);
  private final FaultyEngine primary = new FaultyEngine("redis", clock);
  private final Recorder seen = new Recorder();
  private Windowpane wp;

  /** Writes down every event as one line; the caller's context is "ctx". */
  static final class Recorder implements EngineObserver {
    final List<String> events = new CopyOnWriteArrayList<>();
    private int calls;

    @Override
    public Object parent() {
      return "ctx";
    }

    @Override
    public synchronized Object callStarted(Object parent, String member, String operation,
        boolean fallback) {
      String call = "call" + (++calls);
      events.add("start " + call + " " + member + " " + operation + (fallback ? " fallback" : "")
          + " under " + parent);
      return call;
    }

    @Override
    public void callEnded(Object call, Throwable failure) {
      events.add("end " + call + (failure == null ? "" : " failed: " + failure.getMessage()));
    }

    @Override
    public void decided(Object parent, String limiter, Decision d) {
      events.add("decided " + limiter + " " + (d.allowed() ? "allowed" : "denied") + " by "
          + d.engine().orElse("-") + (d.degraded() ? " degraded" : "") + " under " + parent);
    }
  }

  private Failover chain() {
    return Failover.chain(primary, Windowpane.localBuilder().clock(clock).buildEngine())
        .clock(clock).background(false).callTimeout(Duration.ofMillis(50)).failuresToTrip(100)
        .build();
  }

  @AfterEach
  void close() {
    if (wp != null) {
      wp.close();
    }
  }

  @Test
  void chain_failingPrimary_reportsItsFailedCallThenTheFallbacksCall_andADegradedDecision() {
    wp = Windowpane.using(chain(), seen);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));
    primary.fault = FaultyEngine.Fault.FAIL;

    Decision d = api.tryAcquire("k");

    assertThat(d.engine()).contains("local");
    assertThat(seen.events).containsExactly(
        "start call1 redis tryAcquire under ctx",
        "end call1 failed: redis is down",
        "start call2 local tryAcquire fallback under ctx",
        "end call2",
        "decided api allowed by local degraded under ctx");
  }

  @Test
  void chain_healthyPrimary_oneCallPerDecision_deniedAsWell() {
    wp = Windowpane.using(chain(), seen);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));

    api.tryAcquire("k");
    api.tryAcquireAsync("k", 1).toCompletableFuture().join();

    assertThat(seen.events).containsExactly(
        "start call1 redis tryAcquire under ctx", "end call1",
        "decided api allowed by redis under ctx",
        "start call2 redis tryAcquire under ctx", "end call2",
        "decided api denied by redis under ctx");
  }

  @Test
  void singleEngine_eachDecisionIsOneCallOfTheEngine_andBatchesDecideEachKey() {
    wp = Windowpane.using(Windowpane.localBuilder().clock(clock).buildEngine(), seen);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));

    assertThat(api.tryConsume("a", 1)).isTrue();
    api.tryAcquireAll(List.of("a", "b"), 1);

    assertThat(seen.events).containsExactly(
        "start call1 local tryAcquire under ctx", "end call1",
        "decided api allowed by - under ctx",
        "start call2 local tryAcquireAll under ctx", "end call2",
        "decided api denied by - under ctx",
        "decided api allowed by - under ctx");
  }

  @Test
  void reconfiguredLimiter_staysObserved_andKeepsItsCounts() {
    wp = Windowpane.using(Windowpane.localBuilder().clock(clock).buildEngine(), seen);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));
    api.tryAcquire("k");

    wp.reconfigure("api", Quota.of(Limit.of(2, TEN_SECONDS)));
    seen.events.clear();

    assertThat(api.tryAcquire("k").remaining()).isZero();
    assertThat(seen.events).hasSize(3).last().isEqualTo("decided api allowed by - under ctx");
  }

  @Test
  void groupOnASingleEngine_isOneCall() {
    wp = Windowpane.using(Windowpane.localBuilder().clock(clock).buildEngine(), seen);
    RateLimiter a = wp.limiter("a", Limit.of(1, TEN_SECONDS));
    RateLimiter b = wp.limiter("b", Limit.of(1, TEN_SECONDS));

    assertThat(wp.tryAcquireAllOrNothing(List.of(a.request("k", 1), b.request("k", 1)))
        .orElseThrow().allowed()).isTrue();

    assertThat(seen.events).containsExactly(
        "start call1 local tryAcquireAllOrNothing under ctx", "end call1");
  }

  @Test
  void throwingObserver_changesNoAnswer() {
    EngineObserver broken = new EngineObserver() {
      @Override
      public Object parent() {
        throw new IllegalStateException("parent");
      }

      @Override
      public Object callStarted(Object parent, String member, String operation,
          boolean fallback) {
        throw new IllegalStateException("start");
      }

      @Override
      public void callEnded(Object call, Throwable failure) {
        throw new IllegalStateException("end");
      }

      @Override
      public void decided(Object parent, String limiter, Decision decision) {
        throw new IllegalStateException("decided");
      }
    };
    wp = Windowpane.using(chain(), broken);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));
    primary.fault = FaultyEngine.Fault.FAIL;

    assertThat(api.tryAcquire("k").allowed()).isTrue();
    assertThat(api.tryAcquire("k").allowed()).isFalse();
  }

  @Test
  void none_decidesAsWithoutAnObserver_andANullObserverIsRefused() {
    wp = Windowpane.using(Windowpane.localBuilder().clock(clock).buildEngine(),
        EngineObserver.NONE);
    RateLimiter api = wp.limiter("api", Limit.of(1, TEN_SECONDS));
    assertThat(api.tryAcquire("k").allowed()).isTrue();
    assertThat(api.tryAcquire("k").allowed()).isFalse();
    try (io.windowpane.spi.Engine engine = Windowpane.localBuilder().buildEngine()) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Windowpane.using(engine, null))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("observer");
    }
  }
}
