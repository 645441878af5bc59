package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/*
 * Design note: the value of a lock key, and when it stops holding.
 *
 * Layout (format 1), big-endian:
 *
 *   0x6C 'l'        magic (window state starts with 0x77 'w': neither is misread as the other)
 *   1               format version, checked on every read
 *   takenAt (8)     the engine clock's reading when the holder took or last renewed the lock (ms)
 *   ttlMillis (8)   the ttl of that take or renewal
 *   token           the holder's token, UTF-8, to the end
 *
 * A holder holds at time now while now - takenAt < ttlMillis. The difference is taken with
 * wrap-around, as for System.nanoTime, so a clock near Long.MAX_VALUE needs no saturation; a
 * reading behind takenAt (a client whose clock lags) sees the lock held, the conservative side.
 * The etcd lease the key is put with only deletes it later (ttl + grace): answers never depend
 * on it.
 */
final class LockValue {

  static final int MAGIC = 0x6C;
  static final int FORMAT = 1;

  final long takenAt;
  final long ttlMillis;
  final String token;

  LockValue(long takenAt, long ttlMillis, String token) {
    this.takenAt = takenAt;
    this.ttlMillis = ttlMillis;
    this.token = token;
  }

  /** Whether this holder still holds the lock at {@code now} (engine clock, ms). */
  boolean heldAt(long now) {
    return now - takenAt < ttlMillis;
  }

  /** Whether {@code token} holds the lock at {@code now}. */
  boolean heldBy(String token, long now) {
    return this.token.equals(token) && heldAt(now);
  }

  byte[] encode() {
    byte[] t = token.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(18 + t.length).put((byte) MAGIC).put((byte) FORMAT)
        .putLong(takenAt).putLong(ttlMillis).put(t).array();
  }

  /** The holder stored in {@code value}; null if the key is absent. */
  static LockValue decode(byte[] value, String name) {
    if (value == null) {
      return null;
    }
    if (value.length < 19 || (value[0] & 0xFF) != MAGIC) {
      throw new WindowpaneException("etcd: the key of lock '" + name
          + "' holds a value windowpane's locks did not write");
    }
    int format = value[1] & 0xFF;
    if (format != FORMAT) {
      throw new WindowpaneException("etcd: the key of lock '" + name + "' is in format " + format
          + "; this engine reads format " + FORMAT);
    }
    ByteBuffer in = ByteBuffer.wrap(value, 2, value.length - 2);
    long takenAt = in.getLong();
    long ttl = in.getLong();
    return new LockValue(takenAt, ttl,
        new String(value, 18, value.length - 18, StandardCharsets.UTF_8));
  }
}
