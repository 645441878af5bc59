package io.windowpane.server.internal.rls;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a domain's descriptor tree: its children by {@code key} (a descriptor without a
 * value) or {@code key_value}, the wildcard children in file order, and the rule of the node
 * itself, if any. Built once by {@link RlsConfig}, then only read.
 */
final class RlsNode {

  /** A child whose value holds {@code *}: its key, its value, and the value split on {@code *}. */
  record Wildcard(String key, String value, String[] parts) {
    String compositeKey() {
      return key + "_" + value;
    }
  }

  final Map<String, RlsNode> children = new LinkedHashMap<>();
  final List<Wildcard> wildcards = new ArrayList<>();
  final RlsRule rule;
  final boolean valueToMetric;
  final boolean shareThreshold;

  RlsNode(RlsRule rule, boolean valueToMetric, boolean shareThreshold) {
    this.rule = rule;
    this.valueToMetric = valueToMetric;
    this.shareThreshold = shareThreshold;
  }

  /**
   * Whether {@code value} matches a pattern split on {@code *}: it starts with the first part,
   * ends with the last, and holds the middle parts in order between them; each {@code *}
   * matches zero or more characters.
   */
  static boolean matches(String[] parts, String value) {
    if (parts.length == 1) {
      return parts[0].equals(value);
    }
    String first = parts[0];
    String last = parts[parts.length - 1];
    if (value.length() < first.length() + last.length()
        || !value.startsWith(first) || !value.endsWith(last)) {
      return false;
    }
    int from = first.length();
    int to = value.length() - last.length();
    for (int i = 1; i < parts.length - 1; i++) {
      int at = value.indexOf(parts[i], from);
      if (at < 0 || at + parts[i].length() > to) {
        return false;
      }
      from = at + parts[i].length();
    }
    return true;
  }
}
