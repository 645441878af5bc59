package io.windowpane.bench;

import com.alibaba.csp.sentinel.slots.statistic.data.MetricBucket;
import com.alibaba.csp.sentinel.slots.statistic.metric.BucketLeapArray;

/**
 * What Alibaba Sentinel's flow control does per request on its sliding-window statistic, without
 * the rest of the {@code SphU.entry} slot chain: the QPS check of {@code DefaultController}
 * ({@code StatisticNode.passQps()}, i.e. {@code ArrayMetric.pass()}: sum the pass counts of the
 * live buckets) and, when it passes, the {@code ArrayMetric.addPass(1)} of the statistic slot.
 *
 * <p>The code is {@code ArrayMetric}'s two methods over the same {@link BucketLeapArray}, with
 * the time passed in (read once from {@link System#currentTimeMillis()}) instead of Sentinel's
 * {@code TimeUtil}, so that every implementation in the benchmark reads the same clock. Like
 * Sentinel, check and record are two steps, not one atomic decision: under concurrency a window
 * may pass its limit by up to the number of racing threads.
 */
final class SentinelLeapArray implements Decider {

  private final BucketLeapArray data;
  private final long limit;

  SentinelLeapArray(int sampleCount, int intervalMillis, long limit) {
    this.data = new BucketLeapArray(sampleCount, intervalMillis);
    this.limit = limit;
  }

  @Override
  public boolean decide() {
    long now = System.currentTimeMillis();
    data.currentWindow(now); // ArrayMetric.pass(): refresh the current bucket, then sum
    long pass = 0;
    for (MetricBucket bucket : data.values(now)) {
      pass += bucket.pass();
    }
    if (pass + 1 > limit) {
      return false;
    }
    data.currentWindow(now).value().addPass(1); // ArrayMetric.addPass(1)
    return true;
  }
}
