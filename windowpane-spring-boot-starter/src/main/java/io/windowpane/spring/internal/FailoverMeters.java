package io.windowpane.spring.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.windowpane.Failover;
import java.util.List;
import java.util.function.ToDoubleFunction;

/*
 * Design note: the same meters, names, tags and descriptions as the service's
 * ServiceMetrics.failover(...), so a dashboard built on one reads the other. It depends on
 * windowpane-core and micrometer-core only (no Spring), so that it can move as is into a shared
 * Micrometer module used by both the service and the starter, once such a module exists; until
 * then the service keeps its own copy. Every meter reads the chain when the registry is scraped
 * (a snapshot of a few fields): nothing is pushed from the chain's threads.
 */

/**
 * The meters of a failover chain: {@code windowpane.failover.health{engine}} (0 up,
 * 1 read_only, 2 down), {@code windowpane.failover.active{engine}} (1 for the member taking
 * writes, else 0), and the chain's counters {@code windowpane.failover.trips},
 * {@code .recoveries}, {@code .replayed.events}, {@code .dropped.events} and
 * {@code .lost.events} ({@code windowpane_failover_*_total} in Prometheus). The gauges hold the
 * chain strongly; the chain lives as long as the application's {@code Windowpane}.
 */
public final class FailoverMeters implements MeterBinder {

  private final Failover chain;

  public FailoverMeters(Failover chain) {
    this.chain = chain;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
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
    counter(registry, "trips", "Members tripped (up to read_only or down)",
        c -> c.stats().trips());
    counter(registry, "recoveries", "Members back up after probes and replay",
        c -> c.stats().recoveries());
    counter(registry, "replayed.events", "Events taken by a fallback and replayed into a"
        + " recovered member", c -> c.stats().replayedEvents());
    counter(registry, "dropped.events", "Journaled events no window held any more at replay",
        c -> c.stats().droppedEvents());
    counter(registry, "lost.events", "Events taken by a fallback that will never be replayed"
        + " (journal full, or a member that takes no replay)", c -> c.stats().lostEvents());
  }

  private void counter(MeterRegistry registry, String name, String description,
      ToDoubleFunction<Failover> count) {
    FunctionCounter.builder("windowpane.failover." + name, chain, count)
        .description(description)
        .register(registry);
  }

  /** 0 up, 1 read_only, 2 down. */
  static int healthLevel(Failover.Health health) {
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
