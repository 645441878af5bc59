package io.windowpane.etcd.internal;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The shape segment of a store's keys: 8 hex digits of SHA-256 over what decides the stored
 * layout (algorithms, lengths, panes, bucket mapping), so a store reopened with another spec
 * under the same name starts afresh instead of misreading state.
 */
final class Shapes {

  private Shapes() {}

  static String of(WindowSpec spec) {
    return hash(window(spec));
  }

  static String of(Quota quota) {
    StringBuilder b = new StringBuilder();
    for (Limit limit : quota.limits()) {
      b.append(window(limit.window())).append(':').append(limit.permits()).append(';');
    }
    return hash(b.toString());
  }

  static String of(StatsSpec spec) {
    if (spec.isExact()) {
      return hash("x" + spec.window().windowMillis());
    }
    return hash("h" + window(spec.window()) + "/" + spec.buckets().relativeAccuracy() + "/"
        + spec.buckets().minMagnitude() + "/" + spec.buckets().maxMagnitude());
  }

  private static String window(WindowSpec spec) {
    return spec.algorithm().name().charAt(8) + "" + spec.windowMillis() + "x" + spec.panes();
  }

  private static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (int i = 0; i < 4; i++) {
        hex.append(Character.forDigit((d[i] >> 4) & 0xF, 16)).append(Character.forDigit(d[i] & 0xF, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
