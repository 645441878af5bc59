package io.windowpane.testkit.lock;

/**
 * A protected resource that takes fencing tokens, for lock tests (the example of docs/locks.md):
 * it remembers the highest token it has seen and refuses writes carrying a lower one, so a holder
 * that lost its lock without knowing (a pause longer than the ttl) cannot overwrite its
 * successor's work. Thread-safe.
 */
public final class FencedStorage {

  private long highestToken;
  private String value;

  /** Stores {@code value} unless a newer holder has written already; returns whether it did. */
  public synchronized boolean write(String value, long fencingToken) {
    if (fencingToken < highestToken) {
      return false;
    }
    highestToken = fencingToken;
    this.value = value;
    return true;
  }

  /** The last value stored. */
  public synchronized String value() {
    return value;
  }
}
