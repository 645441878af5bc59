package io.windowpane.internal.local;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/*
 * Design note: the stripes of a hot pane ring (see PaneWindow, "Hot panes").
 *
 * S stripes, each one 64-bit word on a cache line pair of its own (128 bytes apart: Intel's
 * adjacent-line prefetcher pulls lines in pairs), packed like a pane slot but with the whole
 * pane tag:
 *
 *   bits 63..41  tag     the pane this stripe spends for, modulo 2^23
 *   bit  40      sealed  no more spending for that pane (set by whoever makes the pane exact)
 *   bits 39..0   used    permits this stripe took for that pane, at most `chunk`
 *
 * A limiter's hot pane slot already counts S x chunk permits for its stripes (the allotment),
 * so a stripe spends its chunk with one CAS on its own word and never passes the limit. A
 * counter's stripes have no allotment (a counter has no limit to keep): a stripe records up to
 * a full pane count, and the pane's count is the slot plus what the stripes recorded. For a given
 * pane a stripe word only moves forward: older tag -> (pane, used) -> used grows -> sealed. That
 * monotonicity is what makes sum() a consistent snapshot when two reads agree, and seal() final.
 * A stripe holding an older pane is taken over by the next hot pane: by then the older pane was
 * closed (and sealed) or has left the window (PaneWindow's design note says why).
 *
 * Threads pick a stripe by thread id (consecutive ids land on distinct stripes); two threads on
 * one stripe just CAS the same word, as every thread did before stripes existed.
 */
final class PaneStripes {

  /** Words between two stripes: 128 bytes. */
  private static final int STRIDE = 16;
  private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

  /** What {@link #take} and {@link #seal} return when the stripes moved on to a newer pane. */
  static final long RESTART = -1;
  /** {@link #take}: the permits were taken from this thread's stripe. */
  static final long TAKEN = 1;
  /** {@link #take}: this stripe cannot take them (sealed or spent); decide at the slot. */
  static final long REFUSED = 0;

  private final int count;
  private final long chunk;
  private final long allotment;
  private final long[] words;
  private final long before;

  /**
   * {@code count} stripes (a power of two) of {@code chunk} permits each, starting sealed at
   * {@code before}, a pane older than any pane an operation can still act at; a hot slot counts
   * {@code allotment} for them up front (S x chunk for a limit, 0 for a counter).
   */
  PaneStripes(int count, long chunk, long allotment, long before) {
    this.count = count;
    this.chunk = chunk;
    this.allotment = allotment;
    this.before = before;
    this.words = new long[(count + 1) * STRIDE]; // first and last lines padded too
    for (int s = 0; s < count; s++) {
      words[offset(s)] = PaneWindow.pack(before, 0, PaneWindow.CLOSED);
    }
  }

  /** The pane the stripes start sealed at: only later panes can be hot. */
  long before() {
    return before;
  }

  /** Permits counted in a hot slot for the stripes up front: S x chunk for a limit, 0 for a counter. */
  long allotment() {
    return allotment;
  }

  private static int offset(int stripe) {
    return (stripe + 1) * STRIDE;
  }

  private long wordAcquire(int offset) {
    return (long) WORD.getAcquire(words, offset);
  }

  private long casWord(int offset, long expected, long update) {
    return (long) WORD.compareAndExchange(words, offset, expected, update);
  }

  private int mine() {
    return offset((int) Thread.currentThread().getId() & (count - 1));
  }

  /** Takes {@code n} permits of pane {@code pane} from this thread's stripe. */
  long take(long pane, long n) {
    if (n > chunk) {
      return REFUSED;
    }
    int o = mine();
    long w = wordAcquire(o);
    for (;;) {
      long lag = PaneWindow.lag(w, pane);
      long update;
      if (lag == 0) {
        if (PaneWindow.isClosed(w) || PaneWindow.countOf(w) + n > chunk) {
          return REFUSED;
        }
        update = w + n;
      } else if (lag < PaneWindow.HALF_LAP) {
        update = PaneWindow.pack(pane, n, 0); // first spend of this pane on this stripe
      } else {
        return RESTART;
      }
      long witness = casWord(o, w, update);
      if (witness == w) {
        return TAKEN;
      }
      w = witness;
    }
  }

  /**
   * Seals every stripe for {@code pane}; returns what the stripes spent for it (exact and final:
   * sealed words never change for that pane), or {@link #RESTART} if a stripe already holds a
   * newer pane.
   */
  long seal(long pane) {
    long spent = 0;
    for (int s = 0; s < count; s++) {
      int o = offset(s);
      long w = wordAcquire(o);
      for (;;) {
        long lag = PaneWindow.lag(w, pane);
        long update;
        if (lag == 0) {
          if (PaneWindow.isClosed(w)) {
            break;
          }
          update = w | PaneWindow.CLOSED;
        } else if (lag < PaneWindow.HALF_LAP) {
          update = PaneWindow.pack(pane, 0, PaneWindow.CLOSED);
        } else {
          return RESTART;
        }
        long witness = casWord(o, w, update);
        if (witness == w) {
          w = update;
          break;
        }
        w = witness;
      }
      spent += PaneWindow.countOf(w);
    }
    return spent;
  }

  /**
   * Permits the stripes took for {@code pane} so far (older tags count 0), or {@link #RESTART}
   * if a stripe holds a newer pane. Not a snapshot by itself; two equal sums around a read of
   * the slot are one (every stripe's count for a pane only grows).
   */
  long spent(long pane) {
    long sum = 0;
    for (int s = 0; s < count; s++) {
      long w = wordAcquire(offset(s));
      long lag = PaneWindow.lag(w, pane);
      if (lag == 0) {
        sum += PaneWindow.countOf(w);
      } else if (lag >= PaneWindow.HALF_LAP) {
        return RESTART;
      }
    }
    return sum;
  }
}
