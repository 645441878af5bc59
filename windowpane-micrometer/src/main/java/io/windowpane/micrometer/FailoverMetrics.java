package io.windowpane.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.windowpane.Failover;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The meters of a failover chain, the same in the service and the starter:
 * {@code windowpane.failover.health{engine}} (0 up, 1 read_only, 2 down),
 * {@code windowpane.failover.active{engine}} (1 for the member taking writes, else 0), and the
 * chain's counters {@code windowpane.failover.trips}, {@code .recoveries},
 * {@code .replayed.events}, {@code .dropped.events} and {@code .lost.events}
 * ({@code windowpane_failover_*_total} in Prometheus). Every meter reads the chain when the
 * registry is scraped (a snapshot of a few fields): nothing is pushed from the chain's threads.
 * The gauges hold the chain strongly; it lives as long as the application's engine.
 */
public final class FailoverMetrics {

  private FailoverMetrics() {}

  /** Binds {@code chain}'s meters to {@code registry}. */
  public static void bind(MeterRegistry registry, Failover chain) {
    List<Failover.MemberStatus> members = chain.status();
    for (int i = 0; i < members.size(); i++) {
      int index = i;
      String engine = members.get(i).engine();
      Gauge.builder("windowpane.failover.health", chain,
              c -> healthLevel(c.status().get(index).health()))
          .description("Health of a chain member: 0 up, 1 read_only, 2 down")
          .tag("engine", engine)
          .strongReference(true)
          .register(registry);
      Gauge.builder("windowpane.failover.active", chain,
              c -> c.activeEngine().equals(engine) ? 1 : 0)
          .description("1 for the chain member that takes writes now, else 0")
          .tag("engine", engine)
          .strongReference(true)
          .register(registry);
    }
    counter(registry, chain, "trips", "Members tripped (up to read_only or down)",
        c -> c.stats().trips());
    counter(registry, chain, "recoveries", "Members back up after probes and replay",
        c -> c.stats().recoveries());
    counter(registry, chain, "replayed.events", "Events taken by a fallback and replayed into a"
        + " recovered member", c -> c.stats().replayedEvents());
    counter(registry, chain, "dropped.events", "Journaled events no window held any more at"
        + " replay", c -> c.stats().droppedEvents());
    counter(registry, chain, "lost.events", "Events taken by a fallback that will never be"
        + " replayed (journal full, or a member that takes no replay)",
        c -> c.stats().lostEvents());
  }

  private static void counter(MeterRegistry registry, Failover chain, String name,
      String description, ToDoubleFunction<Failover> count) {
    FunctionCounter.builder("windowpane.failover." + name, chain, count)
        .description(description)
        .register(registry);
  }

  /** 0 up, 1 read_only, 2 down. */
  public static int healthLevel(Failover.Health health) {
    switch (health) {
      case UP:
        return 0;
      case READ_ONLY:
        return 1;
      default:
        return 2;
    }
  }
}
