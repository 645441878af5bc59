package io.windowpane.spring.internal;

import io.windowpane.Windowpane;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The engine's health for Actuator: up when it answers a probe (Redis: one {@code TIME} round
 * trip; local: always) within 2 s, down with the error otherwise. Over a failover chain the
 * probe asks the chain, whose own probes keep each member's state.
 */
public final class WindowpaneHealthIndicator implements HealthIndicator {

  /** A probe that gets no answer within this long reports the engine down. */
  static final long PROBE_TIMEOUT_MILLIS = 2_000;

  private final Windowpane windowpane;

  public WindowpaneHealthIndicator(Windowpane windowpane) {
    this.windowpane = windowpane;
  }

  @Override
  public Health health() {
    long start = System.nanoTime();
    try {
      windowpane.probeAsync().toCompletableFuture().get(PROBE_TIMEOUT_MILLIS,
          TimeUnit.MILLISECONDS);
      return Health.up().withDetail("engine", windowpane.engineName())
          .withDetail("latencyMillis", (System.nanoTime() - start) / 1_000_000.0).build();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Health.down(e).withDetail("engine", windowpane.engineName()).build();
    } catch (Exception e) {
      Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
          ? e.getCause() : e;
      return Health.down().withDetail("engine", windowpane.engineName())
          .withDetail("error", cause instanceof java.util.concurrent.TimeoutException
              ? "no answer within " + PROBE_TIMEOUT_MILLIS + " ms"
              : String.valueOf(cause.getMessage())).build();
    }
  }
}
