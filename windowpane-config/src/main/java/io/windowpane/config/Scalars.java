package io.windowpane.config;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Typed reads of YAML values. Each read reports a problem at the value's line, naming its path,
 * and returns null when the value is not of the asked type or range. Values are read from their
 * text, not from the tag the YAML resolver guessed, so {@code password: 12345} is the text
 * "12345" and {@code permits: "10"} is the number 10.
 */
public final class Scalars {

  private static final Pattern INTEGER = Pattern.compile("[-+]?[0-9][0-9_]*");
  private static final Pattern NUMBER =
      Pattern.compile("[-+]?([0-9][0-9_]*(\\.[0-9_]*)?|\\.[0-9_]+)([eE][-+]?[0-9]+)?");

  private Scalars() {}

  /** Whether {@code node} is absent or YAML null ({@code key:}, {@code ~}, {@code null}). */
  public static boolean isNull(Node node) {
    return node == null || Tag.NULL.equals(node.getTag());
  }

  /** How a value is quoted in a problem: {@code 'ten'}, {@code empty}, {@code a list}. */
  public static String describe(Node node) {
    if (isNull(node)) {
      return "empty";
    }
    if (node instanceof SequenceNode) {
      return "a list";
    }
    if (node instanceof MappingNode) {
      return "a mapping";
    }
    String text = ((ScalarNode) node).getValue();
    return "'" + (text.length() > 80 ? text.substring(0, 77) + "..." : text) + "'";
  }

  /** Non-empty text. */
  public static String text(Node node, String path, Problems problems) {
    if (!(node instanceof ScalarNode) || isNull(node) || ((ScalarNode) node).getValue().isEmpty()) {
      problems.at(node, path + " must be a non-empty string, was " + describe(node));
      return null;
    }
    return ((ScalarNode) node).getValue();
  }

  /** A whole number in {@code [min, max]}; YAML's {@code 1_000} digit grouping is accepted. */
  public static Long integer(Node node, String path, long min, long max, Problems problems) {
    String text = node instanceof ScalarNode ? ((ScalarNode) node).getValue() : null;
    if (text == null || isNull(node) || !INTEGER.matcher(text).matches()) {
      problems.at(node, path + " must be a whole number, was " + describe(node));
      return null;
    }
    long value;
    try {
      value = Long.parseLong(text.replace("_", ""));
    } catch (NumberFormatException e) {
      value = text.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE; // out of range below
    }
    if (value < min || value > max) {
      problems.at(node, path + " must be " + min + " to " + max + ", was " + text);
      return null;
    }
    return value;
  }

  /** A finite number, e.g. {@code 0.01}, {@code 1e-9}, {@code 5}. */
  public static Double number(Node node, String path, Problems problems) {
    String text = node instanceof ScalarNode ? ((ScalarNode) node).getValue() : null;
    if (text == null || isNull(node) || !NUMBER.matcher(text).matches()) {
      problems.at(node, path + " must be a number, was " + describe(node));
      return null;
    }
    double value = Double.parseDouble(text.replace("_", ""));
    if (!Double.isFinite(value)) {
      problems.at(node, path + " must be a finite number, was " + text);
      return null;
    }
    return value;
  }

  /** A duration ({@link Durations}) in {@code [min, max]}. */
  public static Duration duration(Node node, String path, Duration min, Duration max,
      Problems problems) {
    String text = node instanceof ScalarNode && !isNull(node) ? ((ScalarNode) node).getValue()
        : null;
    if (text == null) {
      problems.at(node, path + " must be a duration such as 500ms, 10s or 5m, was "
          + describe(node));
      return null;
    }
    try {
      Duration d = Durations.parse(text);
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        problems.at(node, path + " must be " + Durations.format(min) + " to "
            + Durations.format(max) + ", was " + text);
        return null;
      }
      return d;
    } catch (IllegalArgumentException e) {
      problems.at(node, path + " " + e.getMessage());
      return null;
    }
  }

  /** One of {@code allowed}, exactly as written there. */
  public static String choice(Node node, String path, Problems problems, String... allowed) {
    String text = node instanceof ScalarNode && !isNull(node) ? ((ScalarNode) node).getValue()
        : null;
    if (text == null || !List.of(allowed).contains(text)) {
      problems.at(node, path + " must be one of " + String.join(", ", allowed) + "; was "
          + describe(node));
      return null;
    }
    return text;
  }

  /** The items of a list; null (reported) when {@code node} is not a list. */
  public static List<Node> list(Node node, String path, Problems problems, String example) {
    if (!(node instanceof SequenceNode)) {
      problems.at(node, path + " must be a list, e.g. " + example + ", was " + describe(node));
      return null;
    }
    return ((SequenceNode) node).getValue();
  }
}
