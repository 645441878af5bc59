package io.windowpane.server.internal.rls;

import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The rule one descriptor matches, with the key its hits are counted under and the name its
 * metrics are reported under.
 *
 * <p>Matching is envoyproxy/ratelimit's: walk the domain's tree one entry at a time, trying
 * {@code key_value} first, then the wildcard values of that level in file order, then the bare
 * {@code key}; the rule applies only when it sits at the depth of the descriptor's last entry
 * (a longer or shorter descriptor does not match it). A level without children ends the walk.
 *
 * <p>Metric key: the rule's path with the values that matched by value (or of a
 * {@code value_to_metric} level); with {@code detailed_metric}, every entry's
 * {@code key_value}, except that when a {@code share_threshold} wildcard matched, those entries
 * show the pattern ({@code domain.service_svc/*.endpoint_get}) and an entry with an empty value
 * shows its key alone, as envoyproxy/ratelimit's {@code GetLimit} builds it: the statistics of
 * a shared window are not split across its values.
 *
 * <p>Counter key: the entries' values, each prefixed by its length (so no separator can be
 * forged); an entry matched by a {@code share_threshold} wildcard counts under the pattern
 * instead, so all its values share one window. A key longer than the library's 256 characters
 * is replaced by {@code sha256:} and its digest.
 */
record RlsMatch(RlsRule rule, String counterKey, String metricKey) {

  private static final int MAX_KEY = 256;

  /** The match of {@code entries} in the tree {@code root} of {@code domain}, or null. */
  static RlsMatch find(RlsNode root, String domain, List<Entry> entries) {
    RlsNode level = root;
    RlsRule rule = null;
    StringBuilder detailed = new StringBuilder(domain);
    StringBuilder valued = new StringBuilder(domain);
    StringBuilder sharedDetailed = new StringBuilder(domain);
    boolean shared = false;
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      String composite = e.getKey() + "_" + e.getValue();
      detailed.append('.').append(composite);
      RlsNode next = level.children.get(composite);
      RlsNode.Wildcard wildcard = null;
      if (next == null) {
        for (RlsNode.Wildcard w : level.wildcards) {
          if (w.key().equals(e.getKey()) && RlsNode.matches(w.parts(), e.getValue())) {
            next = level.children.get(w.compositeKey());
            wildcard = w;
            break;
          }
        }
      }
      boolean byValue = next != null;
      if (next == null) {
        next = level.children.get(e.getKey());
      }
      boolean sharing = wildcard != null && next.shareThreshold;
      shared |= sharing;
      String counted = sharing ? "*" + wildcard.value() : e.getValue();
      sharedDetailed.append('.').append(e.getKey());
      String detailedValue = sharing ? wildcard.value() : e.getValue();
      if (!detailedValue.isEmpty()) {
        sharedDetailed.append('_').append(detailedValue);
      }
      key.append(counted.length()).append(':').append(counted);
      valued.append('.').append(e.getKey());
      if (next != null) {
        String shown = wildcard != null
            ? (next.shareThreshold ? wildcard.value()
                : next.valueToMetric ? e.getValue() : wildcard.value())
            : byValue ? e.getValue() : next.valueToMetric ? e.getValue() : "";
        if (!shown.isEmpty()) {
          valued.append('_').append(shown);
        }
      }
      if (next != null && next.rule != null && i == entries.size() - 1) {
        rule = next.rule;
      }
      if (next == null || next.children.isEmpty()) {
        break;
      }
      level = next;
    }
    if (rule == null) {
      return null;
    }
    String metric = !rule.detailedMetric() ? valued.toString()
        : shared ? sharedDetailed.toString() : detailed.toString();
    return new RlsMatch(rule, counterKey(key.toString()), metric);
  }

  /** A match whose counter key is shortened to the library's length when needed. */
  static RlsMatch of(RlsRule rule, String key, String metricKey) {
    return new RlsMatch(rule, counterKey(key), metricKey);
  }

  private static String counterKey(String key) {
    if (!key.isEmpty() && key.length() <= MAX_KEY) {
      return key;
    }
    try {
      return "sha256:" + HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
