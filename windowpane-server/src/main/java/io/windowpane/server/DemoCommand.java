package io.windowpane.server;

import io.windowpane.Decision;
import io.windowpane.Limit;
import io.windowpane.ManualClock;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * {@code windowpane demo}: a burst of requests against a quota of 5 per second and 12 per minute
 * on the in-process engine, printed one decision per line. Time comes from a manual clock stepped
 * by the demo, so the output is the same on every run and nothing sleeps.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Runs a burst of requests against a quota of 5 per second and 12 per minute "
        + "on the in-process engine and prints one decision per line.")
final class DemoCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    ManualClock clock = ManualClock.at(1_700_000_000_000L);
    try (Windowpane wp = Windowpane.localBuilder().clock(clock).build()) {
      Limit perSecond = Limit.of(5, WindowSpec.panes(Duration.ofSeconds(1), 10)).named("5-per-second");
      Limit perMinute = Limit.of(12, WindowSpec.log(Duration.ofMinutes(1))).named("12-per-minute");
      RateLimiter limiter = wp.limiter("demo", Quota.of(perSecond, perMinute));
      WindowCounter seen = wp.counter("requests", WindowSpec.panes(Duration.ofMinutes(1), 60));

      System.out.println("windowpane demo: in-process engine, quota " + perSecond.name() + " AND "
          + perMinute.name() + ", key user:42");
      System.out.println();
      long start = clock.millis();
      long[] stepsMillis = {0, 0, 0, 0, 0, 0, 0, 300, 400, 350, 0, 0, 0, 0, 1000, 0, 0, 0, 0, 0};
      int request = 0;
      for (long step : stepsMillis) {
        clock.advance(step);
        request++;
        Decision d = limiter.tryAcquire("user:42");
        long total = seen.add("user:42");
        System.out.printf("t=+%5d ms  request %2d  %-8s remaining=%d%s   (requests seen in the last minute: %d)%n",
            clock.millis() - start, request, d.allowed() ? "ALLOWED" : "DENIED", d.remaining(),
            d.allowed() ? "" : "  deniedBy=" + d.deniedBy().get().name() + " retryAfter="
                + d.retryAfterMillis() + "ms",
            total);
      }
    }
    return 0;
  }
}
