package io.windowpane.bench.stats;

import io.windowpane.MillisClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.time.Duration;

/** The statistics windows compared by the local benchmarks, as a JMH {@code @Param}. */
public enum StatsImplementation {

  /**
   * windowpane's local engine, {@code StatsSpec.histogram(W, panes)}: 1 % relative accuracy,
   * a summary merges the panes' buckets.
   */
  WINDOWPANE_HISTOGRAM {
    @Override
    LocalStats create(MillisClock clock, long windowMillis, int panes) {
      return windowpane(clock, StatsSpec.histogram(Duration.ofMillis(windowMillis), panes));
    }
  },

  /**
   * windowpane's local engine, {@code StatsSpec.exact(W)} with the largest bound
   * ({@value StatsSpec#MAX_VALUES} values per key): every value kept, a summary copies and sorts
   * them, as the raw array does. Its bound is below a steady 1,000,000 with callers racing, so
   * it runs at 10,000 only.
   */
  WINDOWPANE_EXACT {
    @Override
    LocalStats create(MillisClock clock, long windowMillis, int panes) {
      return windowpane(clock, StatsSpec.exact(Duration.ofMillis(windowMillis))
          .withMaxValues(StatsSpec.MAX_VALUES));
    }
  },

  /** The raw-array design ({@link RawArrayStats}): every value kept, recomputed per summary. */
  RAW_ARRAY {
    @Override
    LocalStats create(MillisClock clock, long windowMillis, int panes) {
      RawArrayStats raw = new RawArrayStats(clock, windowMillis);
      return new LocalStats() {
        @Override
        public void record(String key, double value) {
          raw.record(key, value);
        }

        @Override
        public double p99(String key) {
          return raw.summary(key).quantile(0.99);
        }

        @Override
        public long count(String key) {
          return raw.count(key);
        }
      };
    }
  };

  /** A fresh window of {@code windowMillis} on {@code clock}; {@code panes} for histograms. */
  abstract LocalStats create(MillisClock clock, long windowMillis, int panes);

  private static LocalStats windowpane(MillisClock clock, StatsSpec spec) {
    Windowpane wp = Windowpane.localBuilder().clock(clock).build();
    WindowStats stats = wp.stats("bench", spec);
    return new LocalStats() {
      @Override
      public void record(String key, double value) {
        stats.record(key, value);
      }

      @Override
      public double p99(String key) {
        return stats.summary(key).quantile(0.99);
      }

      @Override
      public long count(String key) {
        return stats.summary(key).count();
      }

      @Override
      public void close() {
        wp.close();
      }
    };
  }
}
