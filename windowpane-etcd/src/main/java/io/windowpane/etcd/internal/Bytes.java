package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import java.util.Arrays;

/**
 * The primitives of the stored layout: unsigned LEB128 varints, zigzag varints for signed
 * values, and 8-byte big-endian doubles. A reader that runs off the end of its bytes throws
 * {@link WindowpaneException} naming the key's layout as corrupt rather than answering wrongly.
 */
final class Bytes {

  private Bytes() {}

  /** A growable byte buffer. Not thread-safe. */
  static final class Writer {
    private byte[] buf;
    private int size;

    Writer(int initialCapacity) {
      this.buf = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
      }
    }

    void byte1(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    void varint(long v) {
      ensure(10);
      while ((v & ~0x7FL) != 0) {
        buf[size++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
    }

    void zigzag(long v) {
      varint((v << 1) ^ (v >> 63));
    }

    void fixed64(long v) {
      ensure(8);
      for (int shift = 56; shift >= 0; shift -= 8) {
        buf[size++] = (byte) (v >>> shift);
      }
    }

    void float64(double d) {
      fixed64(Double.doubleToRawLongBits(d));
    }

    int size() {
      return size;
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }
  }

  /** Reads what a {@link Writer} wrote. Not thread-safe. */
  static final class Reader {
    private final byte[] buf;
    private int pos;

    Reader(byte[] buf) {
      this.buf = buf;
    }

    private void need(int n) {
      if (pos + n > buf.length) {
        throw new WindowpaneException("etcd: stored window state is truncated or corrupt ("
            + buf.length + " bytes, read past " + pos + ")");
      }
    }

    int byte1() {
      need(1);
      return buf[pos++] & 0xFF;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        need(1);
        byte b = buf[pos++];
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new WindowpaneException("etcd: stored window state holds a malformed varint");
    }

    long zigzag() {
      long v = varint();
      return (v >>> 1) ^ -(v & 1);
    }

    int count(int max) {
      long n = varint();
      if (n < 0 || n > max) {
        throw new WindowpaneException("etcd: stored window state holds a count of " + n
            + " where at most " + max + " fit");
      }
      return (int) n;
    }

    long fixed64() {
      need(8);
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (buf[pos++] & 0xFF);
      }
      return v;
    }

    double float64() {
      return Double.longBitsToDouble(fixed64());
    }
  }
}
