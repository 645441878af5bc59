package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;

/*
 * Design note: the stored value of one key, and the key's own notion of time.
 *
 * Layout (format 1), big-endian where fixed:
 *
 *   0x77 'w'            magic
 *   1                   format version, checked on every read
 *   k, k x 8 bytes      the random nonces of its last k <= RECENT writes, newest last
 *   latest (zigzag)     the newest effective time applied to the key (ms)
 *   lastEvent (zigzag)  effective time of the last recorded event: the key's logical expiry
 *   body                the store's windows (see Windows, HistogramState, ExactState)
 *
 * Time. etcd has no clock, so operations carry the client's clock. An operation acts at the
 * effective time max(its clock, latest): a client whose clock lags behind what the key has
 * already seen acts at the key's newest time, so times applied to one key never go backwards
 * and a lagging client can only count events longer (stricter), never shorter. A key whose
 * lastEvent is expiryMillis or more behind the effective time is logically gone: answers
 * treat it as never seen, whether or not etcd has deleted it yet (its lease does that later).
 *
 * Nonces make a write whose answer was lost recognisable (see KeyLane): the engine re-reads
 * the key; unchanged since the compared revision, the write did not land; carrying the nonce
 * among its RECENT newest, it did; otherwise the first change after the compared revision,
 * from etcd's history, is the write it tried or someone else's. A write is never applied twice.
 */
final class Doc {

  static final int MAGIC = 0x77;
  static final int FORMAT = 1;

  /** Nonces of the most recent writes kept in the value. */
  static final int RECENT = 4;

  final Body body;
  private final long expiryMillis;
  private boolean live;
  long latest;
  long lastEvent;
  private final long[] recent = new long[RECENT];
  private int recentCount;

  Doc(Body body, long expiryMillis) {
    this.body = body;
    this.expiryMillis = expiryMillis;
  }

  /** Loads {@code value} (null: a key never seen or deleted). */
  Doc load(byte[] value) {
    body.clear();
    live = false;
    recentCount = 0;
    if (value == null) {
      return this;
    }
    Bytes.Reader in = new Bytes.Reader(value);
    if (in.byte1() != MAGIC) {
      throw new WindowpaneException("etcd: the key holds a value windowpane did not write");
    }
    int format = in.byte1();
    if (format != FORMAT) {
      throw new WindowpaneException("etcd: the key holds windowpane state in format " + format
          + "; this engine reads format " + FORMAT);
    }
    recentCount = in.count(RECENT);
    for (int i = 0; i < recentCount; i++) {
      recent[i] = in.fixed64();
    }
    latest = in.zigzag();
    lastEvent = in.zigzag();
    body.read(in);
    live = true;
    return this;
  }

  /**
   * The effective time of an operation whose clock reads {@code now}: the later of the two, and
   * the key emptied first if it expired at that time.
   */
  long effective(long now) {
    if (!live) {
      return now;
    }
    long eff = Math.max(now, latest);
    if (eff - lastEvent >= expiryMillis) {
      body.clear();
      live = false;
      return now;
    }
    return eff;
  }

  /** Whether the key holds state (after {@link #effective}, at that time). */
  boolean live() {
    return live;
  }

  /** Notes that an event was recorded at effective time {@code eff}. */
  void recorded(long eff) {
    latest = live ? Math.max(latest, eff) : eff;
    lastEvent = eff;
    live = true;
  }

  /** The nonce of the key's newest write; 0 for a key never written. */
  long newestNonce() {
    return recentCount == 0 ? 0 : recent[recentCount - 1];
  }

  /** Whether the key's recent writes include the one that carried {@code nonce}. */
  boolean wroteRecently(long nonce) {
    for (int i = 0; i < recentCount; i++) {
      if (recent[i] == nonce) {
        return true;
      }
    }
    return false;
  }

  /** Encodes the key after one more write, carrying {@code nonce}. */
  byte[] encode(long nonce) {
    if (recentCount == RECENT) {
      System.arraycopy(recent, 1, recent, 0, RECENT - 1);
      recentCount--;
    }
    recent[recentCount++] = nonce;
    Bytes.Writer out = new Bytes.Writer(64);
    out.byte1(MAGIC);
    out.byte1(FORMAT);
    out.byte1(recentCount);
    for (int i = 0; i < recentCount; i++) {
      out.fixed64(recent[i]);
    }
    out.zigzag(latest);
    out.zigzag(lastEvent);
    body.write(out);
    return out.toByteArray();
  }
}
