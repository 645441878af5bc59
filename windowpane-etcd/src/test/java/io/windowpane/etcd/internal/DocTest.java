package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.LogBuckets;
import io.windowpane.WindowSpec;
import io.windowpane.WindowpaneException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The stored layout: round trips, the format version check, corrupt values, logical expiry. */
class DocTest {

  private static final WindowSpec PANES = WindowSpec.panes(Duration.ofSeconds(1), 10);

  @Test
  void encodeThenLoad_keepsEveryWindowKindAndTheKeysTime() {
    for (long t : new long[] {1_700_000_000_123L, -5_017, Long.MAX_VALUE / 2 + 7}) {
      Doc doc = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
      long eff = doc.effective(t);
      ((Windows) doc.body).windows[0].add(eff, 5);
      doc.recorded(eff);
      byte[] value = doc.encode(99);
      Doc back = new Doc(Windows.forCounter(PANES), PANES.expiryMillis()).load(value);
      assertThat(back.effective(t + 1)).isEqualTo(t + 1);
      assertThat(((Windows) back.body).windows[0].count(t + 1)).isEqualTo(5);
      assertThat(back.newestNonce()).isEqualTo(99);
    }
    HistogramState h = new HistogramState(100, 10, LogBuckets.defaults());
    h.record(1_000, new double[] {1.5, -2, 0, 1e9});
    Bytes.Writer out = new Bytes.Writer(8);
    h.write(out);
    HistogramState back = new HistogramState(100, 10, LogBuckets.defaults());
    back.read(new Bytes.Reader(out.toByteArray()));
    assertThat(back.summary(1_000).count()).isEqualTo(4);
    assertThat(back.summary(1_000).max()).isEqualTo(1e9);
    assertThat(back.summary(1_000).sum()).isEqualTo(h.summary(1_000).sum());
  }

  @Test
  void load_ofAnotherFormat_failsNamingBothFormats() {
    byte[] value = new Doc(Windows.forCounter(PANES), 1100).encode(1);
    value[1] = 3;
    assertThatThrownBy(() -> new Doc(Windows.forCounter(PANES), 1100).load(value))
        .isInstanceOf(WindowpaneException.class).hasMessageContaining("format 3")
        .hasMessageContaining("reads formats 1 and 2");
  }

  @Test
  void load_ofATruncatedValue_failsInsteadOfAnsweringWrongly() {
    Doc doc = new Doc(Windows.forCounter(PANES), 1100);
    doc.recorded(doc.effective(0));
    byte[] value = doc.encode(1);
    byte[] cut = java.util.Arrays.copyOf(value, value.length - 3);
    assertThatThrownBy(() -> new Doc(Windows.forCounter(PANES), 1100).load(cut))
        .isInstanceOf(WindowpaneException.class).hasMessageContaining("truncated or corrupt");
  }

  @Test
  void effective_ofAClockBehindTheKey_isTheKeysNewestTime_andExpiryEmptiesTheKey() {
    Doc doc = new Doc(Windows.forCounter(PANES), PANES.expiryMillis());
    doc.recorded(doc.effective(10_000));
    assertThat(doc.effective(9_700)).as("a lagging clock acts at the key's time")
        .isEqualTo(10_000);
    assertThat(doc.live()).isTrue();
    assertThat(doc.effective(10_000 + PANES.expiryMillis())).isEqualTo(11_100);
    assertThat(doc.live()).as("expired at W + r after the last event").isFalse();
  }
}
