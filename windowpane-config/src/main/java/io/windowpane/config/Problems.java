package io.windowpane.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Collects the problems found while reading one file, so that a user fixes them all in one round
 * instead of one per run. Readers report and carry on with what they could read; the loader
 * throws once at the end ({@link #throwIfAny()}). Not thread-safe: one per load.
 */
public final class Problems {

  /** Most problems listed in one message; the rest are counted. */
  static final int MAX_REPORTED = 50;

  /** One problem: {@code line} is 1-based, 0 when it concerns the whole file. */
  public record Problem(String file, int line, String text) implements Serializable {
    @Override
    public String toString() {
      return line > 0 ? file + ":" + line + ": " + text : file + ": " + text;
    }
  }

  private final String file;
  private final List<Problem> found = new ArrayList<>();

  public Problems(String file) {
    this.file = file;
  }

  /** The name of the file being read. */
  public String file() {
    return file;
  }

  /** A problem at the start of {@code node}. */
  public void at(Node node, String text) {
    at(line(node), text);
  }

  /** A problem at a 1-based line (0: the whole file). */
  public void at(int line, String text) {
    found.add(new Problem(file, line, text));
  }

  /** How many problems were found so far: a reader compares it to skip dependent checks. */
  public int count() {
    return found.size();
  }

  public void throwIfAny() throws ConfigException {
    if (!found.isEmpty()) {
      throw toException();
    }
  }

  /** The problems found so far (at least one) in file order, as an exception. */
  public ConfigException toException() {
    List<Problem> byLine = new ArrayList<>(found);
    byLine.sort(Comparator.comparingInt(Problem::line)); // stable: same line keeps its order
    return new ConfigException(byLine);
  }

  /** The 1-based line where {@code node} starts. */
  public static int line(Node node) {
    return node == null || node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  public static String format(List<Problem> problems) {
    StringBuilder out = new StringBuilder();
    int shown = Math.min(problems.size(), MAX_REPORTED);
    for (int i = 0; i < shown; i++) {
      Problem p = problems.get(i);
      out.append(i == 0 ? "" : "\n").append(p);
    }
    if (problems.size() > shown) {
      out.append("\n... and ").append(problems.size() - shown).append(" more problems");
    }
    return out.toString();
  }
}
