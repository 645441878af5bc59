package io.windowpane.redis.internal;

import java.util.HashMap;
import java.util.Map;

/** The fields of an {@code INFO} reply: {@code name:value} lines; sections and comments skipped. */
final class InfoText {

  private InfoText() {}

  static Map<String, String> fields(String info) {
    Map<String, String> out = new HashMap<>();
    if (info == null) {
      return out;
    }
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        out.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return out;
  }

  /** The integer field {@code name}, or -1 when absent or not an integer. */
  static long number(Map<String, String> fields, String name) {
    String v = fields.get(name);
    if (v == null) {
      return -1;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
