package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/*
 * Design note: the stored value of one key, and the key's own notion of time.
 *
 * Layout, big-endian where fixed:
 *
 *   0x77 'w'            magic
 *   1 or 2              format version, checked on every read (both are read)
 *   k, k x 8 bytes      the random nonces of its last k <= RECENT writes, newest last
 *   latest (zigzag)     the newest effective time applied to the key (ms)
 *   lastEvent (zigzag)  the newest time of a recorded event: the key's logical expiry
 *   format 2 only:
 *   m                   replays remembered, m <= MAX_REPLAYS, oldest first, then per replay:
 *     8 bytes           the first 8 bytes of SHA-256 over its replay id (UTF-8)
 *     zigzag            latest - the key's effective time when it landed
 *   body                the store's windows (see Windows, HistogramState, ExactState)
 *
 * A value with no replay remembered is written in format 1, byte for byte as before replays
 * existed, so engines that only read format 1 keep working on every key that took no replay
 * within its expiry.
 *
 * Replays (a failover chain's events, see Replay) carry their own time, which may lie behind
 * latest: they are recorded into the window position of that time without moving latest back,
 * and lastEvent only moves forward. Each landed replay is remembered by a 64-bit hash of its id and
 * the key's time when it landed, for the key's expiry (W + r) of key time and at most MAX_REPLAYS
 * of them (the oldest is forgotten first): a resent replay within both bounds changes nothing. The
 * time bound covers every resend that could still count (a replay that landed at key time s holds
 * events of t <= s, which no window holds from t + W on, unless its atMillis was ahead of the clock
 * that capped it); the count bound keeps the value small. A 64-bit hash is 8 bytes whatever the
 * id's length (up to 64 characters); a new id matches one of 1,024 remembered with probability
 * about 2^-54, which would drop that replay. Releases of leased permits (see Release) are
 * remembered the same way, among the same MAX_REPLAYS, under the hash of "release/" + their id.
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
  /** The layout written when the key remembers no replay; read too. */
  static final int FORMAT_WITHOUT_REPLAYS = 1;
  /** The layout with the replay section. */
  static final int FORMAT = 2;

  /** Nonces of the most recent writes kept in the value. */
  static final int RECENT = 4;

  /**
   * Most replay ids one key remembers: 8 bytes plus a varint of 1 to 5 each in the value (at
   * most about 13 KB), four times the failover chain's 256 replays in flight, so a batch whose
   * answer was lost in one wave is still known when the next recovery sends it again.
   */
  static final int MAX_REPLAYS = 1024;

  final Body body;
  private final long expiryMillis;
  private boolean live;
  long latest;
  long lastEvent;
  private final long[] recent = new long[RECENT];
  private int recentCount;
  private static final long[] NONE = new long[0];
  private long[] replayIds = NONE; // allocated when a replay is remembered: most keys take none
  private long[] replaySeen = NONE;
  private int replayCount;

  Doc(Body body, long expiryMillis) {
    this.body = body;
    this.expiryMillis = expiryMillis;
  }

  /** Loads {@code value} (null: a key never seen or deleted). */
  Doc load(byte[] value) {
    body.clear();
    live = false;
    recentCount = 0;
    replayCount = 0;
    if (value == null) {
      return this;
    }
    Bytes.Reader in = new Bytes.Reader(value);
    if (in.byte1() != MAGIC) {
      throw new WindowpaneException("etcd: the key holds a value windowpane did not write");
    }
    int format = in.byte1();
    if (format != FORMAT && format != FORMAT_WITHOUT_REPLAYS) {
      throw new WindowpaneException("etcd: the key holds windowpane state in format " + format
          + "; this engine reads formats " + FORMAT_WITHOUT_REPLAYS + " and " + FORMAT);
    }
    recentCount = in.count(RECENT);
    for (int i = 0; i < recentCount; i++) {
      recent[i] = in.fixed64();
    }
    latest = in.zigzag();
    lastEvent = in.zigzag();
    if (format == FORMAT) {
      int n = in.count(MAX_REPLAYS);
      room(n);
      replayCount = n;
      for (int i = 0; i < replayCount; i++) {
        replayIds[i] = in.fixed64();
        replaySeen[i] = latest - in.zigzag();
      }
    }
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
    recorded(eff, eff);
  }

  /**
   * Notes that an operation at effective time {@code eff} recorded events that happened at
   * {@code eventTime <= eff} (earlier for a replay): the key's time moves to {@code eff}, its
   * logical expiry to {@code eventTime} if that is later.
   */
  void recorded(long eff, long eventTime) {
    latest = live ? Math.max(latest, eff) : eff;
    lastEvent = live ? Math.max(lastEvent, eventTime) : eventTime;
    live = true;
  }

  /**
   * Whether a replay with id hash {@code id} landed on this key within its expiry, judged at
   * effective time {@code eff}; forgets the replays older than that first.
   */
  boolean replayed(long id, long eff) {
    forgetReplays(eff);
    for (int i = 0; i < replayCount; i++) {
      if (replayIds[i] == id) {
        return true;
      }
    }
    return false;
  }

  /** Remembers that the replay with id hash {@code id} landed at effective time {@code eff}. */
  void rememberReplay(long id, long eff) {
    forgetReplays(eff);
    if (replayCount == MAX_REPLAYS) {
      System.arraycopy(replayIds, 1, replayIds, 0, MAX_REPLAYS - 1);
      System.arraycopy(replaySeen, 1, replaySeen, 0, MAX_REPLAYS - 1);
      replayCount--;
    }
    room(replayCount + 1);
    replayIds[replayCount] = id;
    replaySeen[replayCount++] = eff;
  }

  /** Makes room for {@code n <= MAX_REPLAYS} remembered replays. */
  private void room(int n) {
    if (n > replayIds.length) {
      int size = Math.min(MAX_REPLAYS, Math.max(n, Math.max(8, replayIds.length * 2)));
      replayIds = Arrays.copyOf(replayIds, size);
      replaySeen = Arrays.copyOf(replaySeen, size);
    }
  }

  /** Replays remembered now, for tests. */
  int replaysRemembered() {
    return replayCount;
  }

  /** Drops the replays that landed {@code expiryMillis} or more before {@code now}. */
  private void forgetReplays(long now) {
    int kept = 0;
    for (int i = 0; i < replayCount; i++) {
      if (now - replaySeen[i] < expiryMillis) {
        replayIds[kept] = replayIds[i];
        replaySeen[kept++] = replaySeen[i];
      }
    }
    replayCount = kept;
  }

  /** The 64-bit hash under which a key remembers the replay {@code replayId}. */
  static long replayId(String replayId) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256")
          .digest(replayId.getBytes(StandardCharsets.UTF_8));
      long h = 0;
      for (int i = 0; i < 8; i++) {
        h = (h << 8) | (d[i] & 0xFF);
      }
      return h;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
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
    forgetReplays(latest);
    Bytes.Writer out = new Bytes.Writer(64 + 10 * replayCount);
    out.byte1(MAGIC);
    out.byte1(replayCount == 0 ? FORMAT_WITHOUT_REPLAYS : FORMAT);
    out.byte1(recentCount);
    for (int i = 0; i < recentCount; i++) {
      out.fixed64(recent[i]);
    }
    out.zigzag(latest);
    out.zigzag(lastEvent);
    if (replayCount > 0) {
      out.varint(replayCount);
      for (int i = 0; i < replayCount; i++) {
        out.fixed64(replayIds[i]);
        out.zigzag(latest - replaySeen[i]);
      }
    }
    body.write(out);
    return out.toByteArray();
  }
}
