package io.windowpane.internal.local;

import io.windowpane.LogBuckets;
import io.windowpane.Summary;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: the panes of one key's histogram window.
 *
 * A ring of P slots, each holding the StatsPane of the latest pane that used it (pane index
 * floorDiv(t, r), slot = pane mod P). Unlike PaneWindow, a pane here has too many fields to pack
 * into one word, so a pane is an object and moving on is replacing it: a writer that finds its
 * slot holding an older pane installs a fresh one by CAS. A reader therefore never sees two
 * panes' counts mixed, and nothing is ever reset in place.
 *
 * The one race: a writer that read the old pane before it was replaced writes into an object no
 * reader will see again. The writer checks after writing that its pane is still in the slot and,
 * if not, records again into the pane now there, the newest, so a lagging writer's values count
 * at the newest pane (as counters do) instead of being lost. The values it left in the replaced
 * object are unreachable, so nothing is counted twice. A writer more than a lap behind (its pane
 * older than the slot's) records into the slot's pane likewise.
 *
 * A summary at t merges every pane newer than floorDiv(t, r) - P; it reads without blocking
 * writers and allocates one LogHistogram covering the occupied buckets.
 */
final class HistogramRing implements StatsWindow {

  private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(StatsPane[].class);

  private final long paneMillis;
  private final LogBuckets buckets;
  private final StatsPane[] slots;

  HistogramRing(long paneMillis, int panes, LogBuckets buckets) {
    this.paneMillis = paneMillis;
    this.buckets = buckets;
    this.slots = new StatsPane[panes];
  }

  @Override
  public void record(long now, double[] values) {
    record(now, values, 0);
  }

  @Override
  public void record(long now, double value) {
    record(now, null, value); // no array on the single-value path
  }

  /** Records {@code values}, or {@code value} alone when {@code values} is null. */
  private void record(long now, double[] values, double value) {
    long id = Math.floorDiv(now, paneMillis);
    for (;;) {
      int slot = (int) Math.floorMod(id, (long) slots.length);
      StatsPane pane = slotAcquire(slot);
      if (pane == null || pane.id < id) {
        StatsPane fresh = new StatsPane(id, buckets, pane == null ? 1 : pane.stripeCount());
        if (!casSlot(slot, pane, fresh)) {
          continue;
        }
        pane = fresh;
      } else if (pane.id > id) {
        id = pane.id; // more than a lap behind: act at the newer pane
        continue;
      }
      if (values == null) {
        pane.record(value, buckets);
      } else {
        pane.record(values, buckets);
      }
      StatsPane current = slotAcquire(slot);
      if (current == pane) {
        return;
      }
      id = current.id; // replaced while we wrote: record again into the pane that replaced it
    }
  }

  /**
   * An event-time record into pane {@code q = floorDiv(atMillis, r)}: the pane of {@code now}
   * (or newer) is an ordinary record; an older one still in the window is recorded into the
   * pane its slot holds if that is {@code q}, or into a fresh pane {@code q} installed by CAS
   * over an older lap's. A slot holding a newer pane means {@code q} has left the window: late.
   * A pane replaced while the values were written had left the window too, so they are not
   * recorded again (in order, they would have left with it).
   */
  @Override
  public boolean recordAt(long now, long atMillis, double[] values) {
    long p = Math.floorDiv(now, paneMillis);
    long q = Math.floorDiv(atMillis, paneMillis);
    if (q >= p) {
      record(now, values, 0);
      return true;
    }
    if (q <= p - slots.length) {
      return false;
    }
    int slot = (int) Math.floorMod(q, (long) slots.length);
    for (;;) {
      StatsPane pane = slotAcquire(slot);
      if (pane != null && pane.id > q) {
        return false;
      }
      if (pane == null || pane.id < q) {
        StatsPane fresh = new StatsPane(q, buckets, pane == null ? 1 : pane.stripeCount());
        if (!casSlot(slot, pane, fresh)) {
          continue;
        }
        pane = fresh;
      }
      pane.record(values, buckets);
      return true;
    }
  }

  @Override
  public Summary summary(long now) {
    long oldest = Math.floorDiv(now, paneMillis) - slots.length + 1;
    StatsStripe.Merge merge = new StatsStripe.Merge(buckets);
    for (int i = 0; i < slots.length; i++) {
      StatsPane pane = slotAcquire(i);
      if (pane != null && pane.id >= oldest) {
        pane.mergeInto(merge, buckets.maxKey());
      }
    }
    return Summary.ofHistogram(merge.count, merge.sum.value(), merge.min, merge.max,
        merge.histogram);
  }

  /** The pane in the slot of {@code now}'s pane (for tests). */
  StatsPane paneAt(long now) {
    return slotAcquire((int) Math.floorMod(Math.floorDiv(now, paneMillis), (long) slots.length));
  }

  private StatsPane slotAcquire(int i) {
    return (StatsPane) SLOTS.getAcquire(slots, i);
  }

  private boolean casSlot(int i, StatsPane expected, StatsPane update) {
    return SLOTS.compareAndSet(slots, i, expected, update);
  }
}
