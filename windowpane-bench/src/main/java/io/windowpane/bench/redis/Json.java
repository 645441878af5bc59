package io.windowpane.bench.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Writes maps, lists, strings, numbers, booleans and {@code null} as JSON; enough for the result
 * files, without a JSON library on the benchmark's classpath.
 */
public final class Json {

  private Json() {}

  /**
   * Writes a load run's results file ({@code benchmark}, {@code machine}, {@code settings},
   * {@code results}) to {@code out}, creating its folder, and says where.
   */
  public static void writeResults(java.nio.file.Path out, String benchmark, Object machine,
      Object settings, Object results) throws java.io.IOException {
    java.util.Map<String, Object> file = new java.util.LinkedHashMap<>();
    file.put("benchmark", benchmark);
    file.put("machine", machine);
    file.put("settings", settings);
    file.put("results", results);
    if (out.getParent() != null) {
      java.nio.file.Files.createDirectories(out.getParent());
    }
    java.nio.file.Files.writeString(out, write(file));
    System.out.println("wrote " + out);
  }

  /** A latency histogram of nanoseconds as JSON values in microseconds: count, p50, p99, ... */
  public static Map<String, Object> latencyMicros(Histogram h) {
    Map<String, Object> latency = new LinkedHashMap<>();
    latency.put("count", h.getTotalCount());
    if (h.getTotalCount() > 0) {
      latency.put("p50", h.getValueAtPercentile(50) / 1e3);
      latency.put("p99", h.getValueAtPercentile(99) / 1e3);
      latency.put("p999", h.getValueAtPercentile(99.9) / 1e3);
      latency.put("max", h.getMaxValue() / 1e3);
      latency.put("mean", h.getMean() / 1e3);
    }
    return latency;
  }

  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, "");
    return out.append('\n').toString();
  }

  private static void write(Object value, StringBuilder out, String indent) {
    if (value instanceof Optional<?> optional) {
      write(optional.orElse(null), out, indent);
    } else if (value == null) {
      out.append("null");
    } else if (value instanceof Map<?, ?> map) {
      if (map.isEmpty()) {
        out.append("{}");
        return;
      }
      out.append("{\n");
      String inner = indent + "  ";
      int i = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(inner);
        string(String.valueOf(e.getKey()), out);
        out.append(": ");
        write(e.getValue(), out, inner);
        out.append(++i < map.size() ? ",\n" : "\n");
      }
      out.append(indent).append('}');
    } else if (value instanceof List<?> list) {
      if (list.isEmpty()) {
        out.append("[]");
        return;
      }
      out.append("[\n");
      String inner = indent + "  ";
      for (int i = 0; i < list.size(); i++) {
        out.append(inner);
        write(list.get(i), out, inner);
        out.append(i + 1 < list.size() ? ",\n" : "\n");
      }
      out.append(indent).append(']');
    } else if (value instanceof Double d) {
      out.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
    } else if (value instanceof Number || value instanceof Boolean) {
      out.append(value);
    } else {
      string(value.toString(), out);
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
