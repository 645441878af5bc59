package io.windowpane.bench.redis;

import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.bench.stats.LatencyValues;
import io.windowpane.bench.stats.WindowTraffic;
import io.windowpane.redis.RedisEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * windowpane's Redis engine as a statistics window: {@code WindowStats.record(key, value)} (one
 * {@code FCALL}), and for a request also {@code summary(key).quantile(0.99)} (a second
 * {@code FCALL}, the panes merged on the server). Time is a {@link ManualClock} passed as the
 * client's time ({@code RedisEngine.Builder.clock}), moved by {@link WindowTraffic}, so a
 * window of 1,000,000 values is prefilled in seconds and stays at that population; the
 * engine's defaults otherwise (one multiplexed connection). Prefill: {@code recordAllAsync} of
 * each key's batch of each 60 ms (or coarser with many keys: WindowTraffic.prefillBatches), all
 * keys of one instant in flight at once.
 */
final class WindowpaneStatsContender implements StatsContender {

  private final StatsSettings settings;
  private final boolean request;
  private final ManualClock clock = ManualClock.at(WindowTraffic.START_MILLIS);
  private final Windowpane windowpane;
  private final WindowStats stats;
  private final LatencyValues values = LatencyValues.seeded(11);
  private WindowTraffic.Shared ticker;
  private String[] keys;
  private volatile double lastP99 = Double.NaN;

  /**
   * @param exact windowpane's exact window ({@code StatsSpec.exact}, its largest bound) instead
   *     of the histogram
   * @param request whether each call also reads the summary
   */
  WindowpaneStatsContender(StatsSettings settings, boolean exact, boolean request) {
    this.settings = settings;
    this.request = request;
    Duration window = Duration.ofMillis(settings.windowMillis());
    StatsSpec spec = exact
        ? StatsSpec.exact(window).withMaxValues(StatsSpec.MAX_VALUES)
        : StatsSpec.histogram(window, settings.panes());
    RedisEngine engine = RedisEngine.builder()
        .uri(settings.redisUri())
        .timeout(settings.timeout())
        .clock(clock)
        .build();
    this.windowpane = Windowpane.using(engine);
    try {
      this.stats = windowpane.stats(settings.namespace(), spec);
    } catch (RuntimeException e) {
      windowpane.close(); // no connection left reconnecting to a server about to stop
      throw e;
    }
  }

  @Override
  public void prepare(String[] keys) {
    this.keys = keys.clone();
    WindowTraffic traffic = new WindowTraffic(settings.windowMillis(), settings.population(),
        keys.length);
    List<CompletionStage<Void>> inFlight = new ArrayList<>(keys.length);
    try {
      traffic.prefill(clock, settings.windows(), WindowTraffic.prefillBatches(keys.length), values,
          new WindowTraffic.Batch() {
            @Override
            public void accept(int key, long timeMillis, double[] batch) {
              inFlight.add(stats.recordAllAsync(WindowpaneStatsContender.this.keys[key], batch));
            }

            @Override
            public void endOfBatch() throws Exception {
              CompletableFuture.allOf(inFlight.stream().map(CompletionStage::toCompletableFuture)
                  .toArray(CompletableFuture[]::new)).get(settings.timeout().toMillis() * 2,
                  TimeUnit.MILLISECONDS);
              inFlight.clear();
            }
          });
    } catch (Exception e) {
      throw new IllegalStateException("prefill failed: " + e, e);
    }
    this.ticker = traffic.shared(clock);
  }

  @Override
  public Outcome decide(int keyIndex) {
    long e = ticker.next();
    String key = keys[keyIndex];
    stats.record(key, values.at(e));
    if (request) {
      lastP99 = stats.summary(key).quantile(0.99);
    }
    return Outcome.COUNTED;
  }

  @Override
  public long population(int keyIndex) {
    return stats.summary(keys[keyIndex]).count();
  }

  @Override
  public double lastP99() {
    return lastP99;
  }

  @Override
  public void close() {
    windowpane.close();
  }
}
