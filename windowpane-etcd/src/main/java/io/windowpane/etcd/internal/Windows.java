package io.windowpane.etcd.internal;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;

/** The windows of one key: one for a counter, one per limit for a quota, stored together. */
final class Windows implements Body {

  final WindowState[] windows;

  private Windows(WindowState[] windows) {
    this.windows = windows;
  }

  static Windows forCounter(WindowSpec spec) {
    return new Windows(new WindowState[] {window(spec, -1)});
  }

  static Windows forQuota(Quota quota) {
    WindowState[] out = new WindowState[quota.limits().size()];
    for (int i = 0; i < out.length; i++) {
      Limit limit = quota.limits().get(i);
      out[i] = window(limit.window(), limit.permits());
    }
    return new Windows(out);
  }

  /** A fresh window; {@code limit} is -1 for a counter. */
  static WindowState window(WindowSpec spec, long limit) {
    switch (spec.algorithm()) {
      case SLIDING_LOG:
        return new LogState(spec.windowMillis(), limit < 0 ? LogState.MAX_COUNTER_ENTRIES
            : (int) Math.min(limit, Integer.MAX_VALUE));
      case SLIDING_WEIGHTED:
        return new PaneState(spec.windowMillis(), 2, true);
      default:
        return new PaneState(spec.resolutionMillis(), spec.panes(), false);
    }
  }

  @Override
  public void write(Bytes.Writer out) {
    for (WindowState w : windows) {
      w.write(out);
    }
  }

  @Override
  public void read(Bytes.Reader in) {
    for (WindowState w : windows) {
      w.read(in);
    }
  }

  @Override
  public void clear() {
    for (WindowState w : windows) {
      w.clear();
    }
  }
}
