package io.windowpane.server.internal.rlqs;

import io.windowpane.Limit;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.spi.Checks;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * One configured RLQS bucket: which bucket ids it matches, the fleet limit over its window, and
 * the assignments' time to live. After {@link RlqsConfig#bind} it holds two counters on the
 * engine: {@code rlqs:<name>}, the requests Envoys reported as allowed (the window the limit
 * applies to), and {@code rlqs-demand:<name>}, every reported request, allowed or denied, over
 * one assignment time to live (how the room is shared). Both are keyed by the domain and the
 * bucket id, so every server on the engine sees the same figures.
 */
final class RlqsBucketRule {

  /** Panes of the demand window (one time to live). */
  static final int DEMAND_PANES = 10;

  private final String domain;
  private final String name;
  private final Map<String, String> match;
  private final Limit limit;
  private final Duration ttl;
  private final boolean tokenBucket;
  private WindowCounter usage;
  private WindowCounter demand;

  RlqsBucketRule(String domain, String name, Map<String, String> match, Limit limit,
      Duration ttl, boolean tokenBucket) {
    this.domain = domain;
    this.name = name;
    this.match = Map.copyOf(match);
    this.limit = limit;
    this.ttl = ttl;
    this.tokenBucket = tokenBucket;
  }

  void bind(Windowpane wp) {
    usage = wp.counter("rlqs:" + name, limit.window());
    demand = wp.counter("rlqs-demand:" + name, WindowSpec.panes(ttl, DEMAND_PANES));
  }

  /** Whether {@code bucket} has exactly this rule's keys, each value equal or matched by "*". */
  boolean matches(Map<String, String> bucket) {
    if (bucket.size() != match.size()) {
      return false;
    }
    for (Map.Entry<String, String> e : match.entrySet()) {
      String value = bucket.get(e.getKey());
      if (value == null || !(e.getValue().equals("*") || e.getValue().equals(value))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The engine key of {@code bucket} in this rule's counters: the domain and the entries sorted
   * by key ({@code BucketId} entries have no order), with {@code %}, {@code &} and {@code =}
   * escaped; past {@link Checks#MAX_KEY_LENGTH} characters, a SHA-256 of that text.
   */
  String key(Map<String, String> bucket) {
    StringBuilder s = new StringBuilder(escape(domain));
    for (Map.Entry<String, String> e : new TreeMap<>(bucket).entrySet()) {
      s.append('&').append(escape(e.getKey())).append('=').append(escape(e.getValue()));
    }
    if (s.length() <= Checks.MAX_KEY_LENGTH) {
      return s.toString();
    }
    try {
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(s.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static String escape(String s) {
    return s.replace("%", "%25").replace("&", "%26").replace("=", "%3D");
  }

  String name() {
    return name;
  }

  Limit limit() {
    return limit;
  }

  Duration ttl() {
    return ttl;
  }

  boolean tokenBucket() {
    return tokenBucket;
  }

  /** Reported allowed requests, over the limit's window. */
  WindowCounter usage() {
    return usage;
  }

  /** Reported requests, allowed and denied, over one time to live. */
  WindowCounter demand() {
    return demand;
  }
}
