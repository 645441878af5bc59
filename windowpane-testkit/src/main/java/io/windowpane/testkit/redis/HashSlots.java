package io.windowpane.testkit.redis;

import java.nio.charset.StandardCharsets;

/** The Redis Cluster key-to-slot function. Stateless and thread-safe. */
final class HashSlots {

  /*
   * Design note. Redis Cluster maps a key to CRC16(key) mod 16384, where CRC16 is the XMODEM
   * variant (polynomial 0x1021, initial value 0, no reflection, no final XOR; check value
   * 0x31C3 for "123456789"), computed over the key's bytes. If the key holds a '{' followed later
   * by a '}' with at least one byte between them, only the bytes between the first '{' and the
   * first '}' after it are hashed (the "hash tag"), so "{user1}.a" and "{user1}.b" share a slot;
   * "{}", an unclosed "{" and everything after the first tag change nothing. This mirrors
   * keyHashSlot() in redis/src/cluster.c and the "Keys distribution model" section of the Cluster
   * specification. Keys are encoded as UTF-8, as RespClient sends them; '{' and '}' never occur
   * inside a multi-byte UTF-8 sequence, so scanning bytes or chars finds the same tag.
   *
   * The CRC is computed bit by bit rather than from the usual 256-entry table: this runs in tests
   * on short keys, and eight shifts per byte are easier to check against the specification than a
   * table.
   */

  /** The number of hash slots in a Redis Cluster. */
  static final int SLOTS = 16384;
  private static final int POLYNOMIAL = 0x1021;

  private HashSlots() {}

  /** The slot of {@code key}, in {@code [0, 16383]}; see the design note for hash tags. */
  static int slotOf(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int open = indexOf(bytes, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(bytes, (byte) '}', open + 1);
      if (close > open + 1) {
        return crc16(bytes, open + 1, close) & (SLOTS - 1);
      }
    }
    return crc16(bytes, 0, bytes.length) & (SLOTS - 1);
  }

  /** CRC-16/XMODEM of {@code bytes[from, to)}. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= (bytes[i] & 0xFF) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ POLYNOMIAL : crc << 1;
      }
    }
    return crc & 0xFFFF;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
