package io.windowpane.etcd.internal;

import java.math.BigInteger;
import java.util.Arrays;

/*
 * Design note: the SLIDING_PANES and SLIDING_WEIGHTED windows of one key as P counts.
 *
 * The state is the newest pane reached (head = floorDiv(t, r), epoch-aligned like every engine)
 * and the counts of panes head-P+1 .. head, oldest first. An operation at time t acts at pane
 * pe = max(floorDiv(t, r), head): a clock that lags behind what the key has seen acts at the
 * newest pane, as in the local engine's PaneWindow, which can only make a limit stricter. Moving
 * to a newer pane shifts the counts and zero-fills. The weighted window is the same state with
 * P = 2 panes of length W: the current fixed window and the previous one, the previous weighted
 * by the part of it still inside the sliding window, rounded up. Counts per pane saturate at
 * 2^40 - 1 like the local engine's. retryAfter is computed exactly as in PaneWindow, so the
 * answers (and the conformance suite's exact retryAfter) are the same.
 *
 * A replay at time t adds to pane floorDiv(t, r) if the window still holds it (a pane window:
 * the pane is among the P newest; weighted: t is less than W old, so it lands in the current or
 * the previous fixed window, the previous one then weighted like its other events); a pane newer
 * than head moves head to it, as an add at t would.
 *
 * A release at t (a lease's unspent permits) subtracts from pane floorDiv(t, r), down to 0 at
 * most, while that pane still counts: among the P newest, for a weighted window the current or
 * the previous fixed window (even when t is W or more ago: the previous window's events still
 * weigh in, so the grant's unspent permits are taken out of it as if never recorded, as the
 * local engine does). A pane newer than head holds nothing to take, and head never moves.
 */
final class PaneState extends WindowState {

  static final long MAX_PANE_COUNT = (1L << 40) - 1;

  private final long paneMillis;
  private final int panes;
  private final boolean weighted;
  private final long[] counts;
  private boolean empty = true;
  private long head;

  PaneState(long paneMillis, int panes, boolean weighted) {
    this.paneMillis = paneMillis;
    this.panes = panes;
    this.weighted = weighted;
    this.counts = new long[panes];
  }

  private long paneAt(long now) {
    long p = Math.floorDiv(now, paneMillis);
    return empty ? p : Math.max(p, head);
  }

  private void moveTo(long pe) {
    if (empty) {
      Arrays.fill(counts, 0);
      head = pe;
      empty = false;
      return;
    }
    if (pe <= head) {
      return;
    }
    long shift = pe - head;
    if (shift >= panes) {
      Arrays.fill(counts, 0);
    } else {
      int s = (int) shift;
      System.arraycopy(counts, s, counts, 0, panes - s);
      Arrays.fill(counts, panes - s, panes, 0);
    }
    head = pe;
  }

  /** Count of pane {@code q} without moving: 0 for panes outside the held range. */
  private long pane(long q) {
    if (empty || q > head || q <= head - panes) {
      return 0;
    }
    return counts[(int) (q - head + panes - 1)];
  }

  private long windowCount(long now, long pe, long extra) {
    if (weighted) {
      long current = pane(pe) + extra;
      long previous = pane(pe - 1);
      long elapsed = Math.max(0, now - pe * paneMillis);
      return current + (previous == 0 ? 0 : mulDivCeil(previous, paneMillis - elapsed, paneMillis));
    }
    long sum = extra;
    for (long q = pe - panes + 1; q <= pe; q++) {
      sum += pane(q);
    }
    return sum;
  }

  @Override
  long count(long now) {
    return windowCount(now, paneAt(now), 0);
  }

  @Override
  boolean fits(long now, long permits, long limit) {
    return windowCount(now, paneAt(now), permits) <= limit;
  }

  @Override
  void add(long now, long n) {
    long pe = paneAt(now);
    moveTo(pe);
    counts[panes - 1] = Math.min(MAX_PANE_COUNT, counts[panes - 1] + n);
  }

  @Override
  boolean replay(long now, long at, long n) {
    if (weighted && now - at >= paneMillis) {
      return false; // more than W ago (see the contract)
    }
    return addAt(now, at, n);
  }

  /** {@link #replay} without its weighted rule: the previous fixed window still counts. */
  @Override
  boolean addAt(long now, long at, long n) {
    long q = Math.floorDiv(at, paneMillis);
    if (q <= paneAt(now) - panes) {
      return false; // its pane (weighted: its fixed window) left the window
    }
    if (empty || q > head) {
      moveTo(q);
    }
    int i = (int) (q - head + panes - 1); // head - panes <= paneAt(now) - panes < q <= head
    counts[i] = Math.min(MAX_PANE_COUNT, counts[i] + n);
    return true;
  }

  @Override
  boolean release(long now, long at, long n) {
    long q = Math.floorDiv(at, paneMillis);
    if (q <= paneAt(now) - panes) {
      return false; // its pane (weighted: its fixed window) no longer counts
    }
    if (!empty && q <= head) { // a pane newer than head was never written: nothing to take
      int i = (int) (q - head + panes - 1); // head - panes <= paneAt(now) - panes < q <= head
      counts[i] -= Math.min(n, counts[i]);
    }
    return true;
  }

  @Override
  long retryAfter(long now, long permits, long limit) {
    long pe = paneAt(now);
    long untilPane = pe * paneMillis - now; // <= 0 unless now lags behind the key's newest pane
    if (weighted) {
      return weightedRetryAfter(now, permits, limit, pe, untilPane);
    }
    long total = windowCount(now, pe, 0);
    long need = total + permits - limit;
    if (need <= 0) {
      return 0;
    }
    long dropped = 0;
    for (int k = 1; k <= panes; k++) {
      dropped += pane(pe - panes + k);
      if (dropped >= need) {
        return untilPane + k * paneMillis; // pane pe + k no longer holds the k oldest panes
      }
    }
    return untilPane + panes * paneMillis;
  }

  private long weightedRetryAfter(long now, long permits, long limit, long pe, long untilPane) {
    long w = paneMillis;
    long current = pane(pe);
    long previous = pane(pe - 1);
    long elapsed = Math.max(0, -untilPane);
    long room = limit - current - permits;
    if (room >= 0) {
      long from = previous == 0 ? 0 : w - Math.min(w, mulDivFloor(room, w, previous));
      if (from <= elapsed) {
        return 0;
      }
      if (from < w) {
        return from - elapsed;
      }
    }
    long fromNext = current == 0 ? 0 : w - Math.min(w, mulDivFloor(limit - permits, w, current));
    if (fromNext < w) {
      return untilPane + w + fromNext;
    }
    return untilPane + 2 * w;
  }

  static long mulDivFloor(long a, long b, long d) {
    if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
      return a * b / d;
    }
    BigInteger q = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(d));
    return q.bitLength() < 64 ? q.longValue() : Long.MAX_VALUE;
  }

  static long mulDivCeil(long a, long b, long d) {
    if (Math.multiplyHigh(a, b) == 0 && a * b >= 0) {
      long p = a * b;
      long q = p / d;
      return q * d == p ? q : q + 1;
    }
    BigInteger[] qr = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
        .divideAndRemainder(BigInteger.valueOf(d));
    BigInteger q = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    return q.bitLength() < 64 ? q.longValue() : Long.MAX_VALUE;
  }

  @Override
  public void write(Bytes.Writer out) {
    if (empty) {
      out.byte1(0);
      return;
    }
    out.byte1(1);
    out.zigzag(head);
    for (long c : counts) {
      out.varint(c);
    }
  }

  @Override
  public void read(Bytes.Reader in) {
    empty = in.byte1() == 0;
    if (!empty) {
      head = in.zigzag();
      for (int i = 0; i < panes; i++) {
        counts[i] = in.varint();
      }
    }
  }

  @Override
  public void clear() {
    empty = true;
  }
}
