package io.windowpane.etcd;

/**
 * A protected resource that takes fencing tokens (the example of docs/locks.md; the same as the
 * Redis tests' one): it remembers the highest token it has seen and refuses writes carrying a
 * lower one, so a holder that lost its lock without knowing cannot overwrite its successor's work.
 */
final class FencedStorage {

  private long highestToken;
  private String value;

  /** Stores {@code value} unless a newer holder has written already; returns whether it did. */
  synchronized boolean write(String value, long fencingToken) {
    if (fencingToken < highestToken) {
      return false;
    }
    highestToken = fencingToken;
    this.value = value;
    return true;
  }

  synchronized String value() {
    return value;
  }
}
