package io.windowpane.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.windowpane.ManualClock;
import io.windowpane.server.internal.ServiceMetrics.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's history, sampled by hand on a manual clock from real meters: which second a
 * sample files its counts under, quiet seconds, the 300-second bound, late and backward ticks,
 * engine calls, and exact totals while requests and samples race.
 */
class DashboardHistoryTest {

  private final ServiceMetrics metrics = new ServiceMetrics();
  // 5 ms into second -2, before the epoch: floorDiv, not division, picks the second
  private final ManualClock clock = ManualClock.at(-1_995L);
  private DashboardHistory history;

  @AfterEach
  void close() {
    metrics.close();
  }

  @Test
  void beforeTheFirstSample_nothingIsCovered() {
    history = new DashboardHistory(metrics, clock);
    metrics.decision("demo", Outcome.ALLOWED, false);
    JsonNode out = read();
    assertThat(out.path("seconds").asInt()).isZero();
    assertThat(out.path("toSecond").asLong()).isEqualTo(-3);
    assertThat(out.path("nowMillis").asLong()).isEqualTo(-1_995L);
  }

  @Test
  void sample_filesTheSecondThatJustEnded_withWhatHappenedInIt() {
    metrics.decision("demo", Outcome.ALLOWED, false); // before the history: a total, no row
    history = new DashboardHistory(metrics, clock);
    decide("demo", 3, 2);
    metrics.decision("demo", Outcome.WOULD_DENY, true);
    clock.advance(1_000); // 5 ms into second -1
    history.sample();

    JsonNode out = read();
    assertThat(out.path("seconds").asInt()).isEqualTo(1);
    assertThat(out.path("toSecond").asLong()).isEqualTo(-2);
    JsonNode demo = limiter(out, "demo");
    assertThat(demo.path("allowed").asLong()).isEqualTo(4);
    assertThat(demo.path("denied").asLong()).isEqualTo(2);
    assertThat(demo.path("wouldDeny").asLong()).isEqualTo(1);
    assertThat(rows(demo)).containsExactly(List.of(-2L, 3L, 2L, 1L));
  }

  @Test
  void quietSeconds_haveNoRow_butAreCovered() {
    history = new DashboardHistory(metrics, clock);
    decide("demo", 1, 0);
    tick(); // files second -2
    for (int i = 0; i < 10; i++) {
      tick(); // nothing happened
    }
    decide("demo", 0, 2);
    tick(); // files second 9
    JsonNode out = read();
    assertThat(out.path("seconds").asInt()).isEqualTo(12);
    assertThat(out.path("toSecond").asLong()).isEqualTo(9);
    assertThat(rows(limiter(out, "demo"))).containsExactly(List.of(-2L, 1L, 0L, 0L),
        List.of(9L, 0L, 2L, 0L));
  }

  @Test
  void wrapsAround_keepingExactlyTheLast300Seconds() {
    history = new DashboardHistory(metrics, clock);
    for (int i = 0; i < 700; i++) {
      decide("demo", i % 3 + 1, 0);
      tick();
    }
    JsonNode out = read();
    long last = out.path("toSecond").asLong();
    assertThat(last).isEqualTo(-2 + 699);
    assertThat(out.path("seconds").asInt()).isEqualTo(300);
    List<List<Long>> rows = rows(limiter(out, "demo"));
    assertThat(rows).hasSize(300);
    assertThat(rows.get(0).get(0)).isEqualTo(last - 299);
    assertThat(rows.get(299).get(0)).isEqualTo(last);
    for (List<Long> row : rows) {
      int i = (int) (row.get(0) + 2); // the loop's i for this second
      assertThat(row.get(1)).as("second %d", row.get(0)).isEqualTo(i % 3 + 1);
    }
    assertThat(limiter(out, "demo").path("allowed").asLong()).as("totals keep everything")
        .isEqualTo(233 * 6 + 1);
  }

  @Test
  void lateTick_filesUnderTheSecondJustEnded_andLosesNothing() {
    history = new DashboardHistory(metrics, clock);
    decide("demo", 2, 0);
    clock.advance(2_500); // the tick is late: 505 ms into second 0
    history.sample(); // second -1; second -2 had its decisions too, they are filed here
    decide("demo", 1, 0);
    clock.advance(300); // a second tick within the same second
    history.sample();
    decide("demo", 1, 0);
    history.sample();
    assertThat(rows(limiter(read(), "demo"))).containsExactly(List.of(-1L, 4L, 0L, 0L));
  }

  @Test
  void clockGoingBack_filesUnderTheLastSecond_neverAnEarlierOne() {
    history = new DashboardHistory(metrics, clock);
    clock.advance(5_000);
    decide("demo", 1, 0);
    history.sample(); // second 2
    clock.set(-100_000);
    decide("demo", 1, 0);
    history.sample();
    JsonNode out = read();
    assertThat(out.path("toSecond").asLong()).isEqualTo(2);
    assertThat(rows(limiter(out, "demo"))).containsExactly(List.of(2L, 2L, 0L, 0L));
  }

  @Test
  void engineCalls_areFiledPerOperation_withTheirTime() {
    history = new DashboardHistory(metrics, clock);
    metrics.backend("acquire", true, 1_500_000);
    metrics.backend("acquire", false, 500_000);
    metrics.backend("count", true, 250_000);
    tick();
    JsonNode out = read();
    JsonNode acquire = operation(out, "acquire");
    assertThat(acquire.path("calls").asLong()).isEqualTo(2);
    assertThat(acquire.path("errors").asLong()).isEqualTo(1);
    assertThat(acquire.path("totalMillis").asDouble()).isEqualTo(2.0);
    JsonNode row = acquire.path("seconds").get(0);
    assertThat(row.get(0).asLong()).isEqualTo(-2);
    assertThat(row.get(1).asLong()).isEqualTo(2);
    assertThat(row.get(2).asLong()).isEqualTo(1);
    assertThat(row.get(3).asDouble()).isEqualTo(2.0);
    assertThat(operation(out, "count").path("seconds").get(0).get(3).asDouble()).isEqualTo(0.25);
  }

  @Test
  void concurrentDecisionsAndSamples_addUpExactly() throws Exception {
    history = new DashboardHistory(metrics, clock);
    int threads = 4;
    int each = 20_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> writers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread w = new Thread(() -> {
        await(go);
        for (int i = 0; i < each; i++) {
          metrics.decision("demo", i % 4 == 0 ? Outcome.DENIED : Outcome.ALLOWED, false);
        }
      });
      w.start();
      writers.add(w);
    }
    AtomicBoolean done = new AtomicBoolean();
    Thread sampler = new Thread(() -> {
      await(go);
      for (int i = 0; i < 250 && !done.get(); i++) {
        tick();
      }
    });
    sampler.start();
    go.countDown();
    for (Thread w : writers) {
      w.join();
    }
    done.set(true);
    sampler.join();
    tick();
    long allowed = 0;
    long denied = 0;
    for (List<Long> row : rows(limiter(read(), "demo"))) {
      allowed += row.get(1);
      denied += row.get(2);
    }
    assertThat(allowed).isEqualTo(threads * each * 3L / 4);
    assertThat(denied).isEqualTo(threads * each / 4L);
  }

  private void tick() {
    clock.advance(1_000);
    history.sample();
  }

  private void decide(String limiter, int allowed, int denied) {
    for (int i = 0; i < allowed; i++) {
      metrics.decision(limiter, Outcome.ALLOWED, false);
    }
    for (int i = 0; i < denied; i++) {
      metrics.decision(limiter, Outcome.DENIED, false);
    }
  }

  private JsonNode read() {
    ObjectNode out = Json.object();
    history.write(out);
    return out;
  }

  private static JsonNode limiter(JsonNode out, String name) {
    for (JsonNode l : out.path("limiters")) {
      if (l.path("name").asText().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no limiter " + name + " in " + out);
  }

  private static JsonNode operation(JsonNode out, String name) {
    for (JsonNode o : out.path("backend")) {
      if (o.path("operation").asText().equals(name)) {
        return o;
      }
    }
    throw new AssertionError("no operation " + name + " in " + out);
  }

  private static List<List<Long>> rows(JsonNode series) {
    List<List<Long>> rows = new ArrayList<>();
    for (JsonNode row : series.path("seconds")) {
      List<Long> r = new ArrayList<>();
      row.forEach(v -> r.add(v.asLong()));
      rows.add(r);
    }
    return rows;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
