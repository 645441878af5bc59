package io.windowpane.internal.buffering;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;

/**
 * The per-key entries of a buffering store, what its counter and statistics forms share: one
 * entry per key, guarded by its own monitor; a call works on a live entry only (one dropped
 * concurrently is marked dead under its monitor first, so nothing is added to it afterwards and
 * the call takes a new one); the flusher's round sends every entry's pending events and drops
 * entries idle for the staleness bound with nothing pending or in flight (bounded memory).
 */
final class KeyBuffers<E extends KeyBuffers.Entry> {

  /** One key's buffer; every field guarded by the entry's monitor. */
  abstract static class Entry {
    final String key;
    long lastUsed;
    boolean dead;

    Entry(String key) {
      this.key = key;
    }

    /** Whether events added here wait to be sent. */
    abstract boolean hasPending();

    /** Whether calls sent for the key have not answered yet. */
    abstract boolean hasInFlight();
  }

  private final ConcurrentMap<String, E> entries = new ConcurrentHashMap<>();
  private final Function<String, E> make;

  KeyBuffers(Function<String, E> make) {
    this.make = make;
  }

  /** {@code f} on {@code key}'s live entry, under its monitor, used at {@code now}. */
  <T> T with(String key, long now, Function<E, T> f) {
    while (true) {
      E e = entries.computeIfAbsent(key, make);
      synchronized (e) {
        if (!e.dead) {
          e.lastUsed = now;
          return f.apply(e);
        }
      }
    }
  }

  /** {@code key}'s entry, live or not; null when there is none. */
  E get(String key) {
    return entries.get(key);
  }

  /** Whether this node holds events for {@code key}: pending, or in calls not yet answered. */
  boolean holdsEvents(String key) {
    E e = entries.get(key);
    if (e == null) {
      return false;
    }
    synchronized (e) {
      return e.hasPending() || e.hasInFlight();
    }
  }

  /**
   * One round of the flusher at {@code now}: {@code take} (under the entry's monitor) of each
   * entry with pending events, and drops those unused for more than {@code stalenessMillis} with
   * nothing pending or in flight. Returns what {@code take} answered, nulls left out.
   */
  <S> List<S> round(long now, long stalenessMillis, Function<E, S> take) {
    List<S> taken = new ArrayList<>();
    for (E e : entries.values()) {
      synchronized (e) {
        if (e.dead) {
          continue;
        }
        if (e.hasPending()) {
          S s = take.apply(e);
          if (s != null) {
            taken.add(s);
          }
        } else if (!e.hasInFlight() && now - e.lastUsed > stalenessMillis) {
          e.dead = true;
          entries.remove(e.key, e);
        }
      }
    }
    return taken;
  }

  /** Keys with an entry (tests: bounded memory). */
  int size() {
    return entries.size();
  }
}
