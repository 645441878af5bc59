package io.windowpane.spring.internal;

import io.windowpane.Failover;
import io.windowpane.Windowpane;
import io.windowpane.micrometer.MemoryMetrics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The engine's health for Actuator: up when it answers a probe (Redis: one {@code TIME} round
 * trip; local: always) within 2 s, down with the error otherwise. Over a failover chain the
 * probe asks the chain, whose own probes keep each member's state: {@code DEGRADED} (HTTP 200)
 * while a member other than the first takes the writes (a chain that started during an outage
 * starts so), {@code DOWN} only when no member takes writes, with the active member and each
 * member's health, signals, since when and pending replay in the details.
 */
public final class WindowpaneHealthIndicator implements HealthIndicator {

  /** A probe that gets no answer within this long reports the engine down. */
  static final long PROBE_TIMEOUT_MILLIS = 2_000;

  /** A chain answering from a fallback: answers, but not from the first member. */
  public static final Status DEGRADED = new Status("DEGRADED",
      "a fallback member of the failover chain takes the writes");

  private final Windowpane windowpane;

  public WindowpaneHealthIndicator(Windowpane windowpane) {
    this.windowpane = windowpane;
  }

  @Override
  public Health health() {
    long start = System.nanoTime();
    Failover chain = windowpane.failover().orElse(null);
    Health.Builder h;
    try {
      windowpane.probeAsync().toCompletableFuture().get(PROBE_TIMEOUT_MILLIS,
          TimeUnit.MILLISECONDS);
      h = (chain != null && chain.degraded() ? Health.status(DEGRADED) : Health.up())
          .withDetail("engine", windowpane.engineName())
          .withDetail("latencyMillis", (System.nanoTime() - start) / 1_000_000.0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      h = Health.down(e).withDetail("engine", windowpane.engineName());
    } catch (Exception e) {
      Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
          ? e.getCause() : e;
      h = Health.down().withDetail("engine", windowpane.engineName())
          .withDetail("error", cause instanceof java.util.concurrent.TimeoutException
          ? "no answer within " + PROBE_TIMEOUT_MILLIS + " ms" : String.valueOf(cause.getMessage()));
    }
    if (chain != null) {
      h.withDetail("active", chain.activeEngine()).withDetail("degraded", chain.degraded())
          .withDetail("chain", members(chain));
    }
    Health.Builder built = h;
    windowpane.memoryStatus().ifPresent(m -> built.withDetail("memory", MemoryMetrics.healthDetail(m)));
    return h.build();
  }

  private static List<Map<String, Object>> members(Failover chain) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Failover.MemberStatus m : chain.status()) {
      Map<String, Object> member = new LinkedHashMap<>();
      member.put("engine", m.engine());
      member.put("health", m.health().name().toLowerCase(Locale.ROOT));
      member.put("signals", m.signals().stream()
          .map(s -> s.name().toLowerCase(Locale.ROOT)).toList());
      member.put("since", Instant.ofEpochMilli(m.sinceMillis()).toString());
      member.put("pendingReplay", m.pendingReplay());
      out.add(member);
    }
    return out;
  }
}
