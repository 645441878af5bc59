package io.windowpane.config;

import io.windowpane.LogBuckets;
import io.windowpane.StatsSpec;
import java.time.Duration;
import java.util.List;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads one statistics window: {@code kind} (histogram, the default, or exact), {@code window},
 * and the options of its kind ({@code panes}, {@code accuracy}, {@code trackedRange} for a
 * histogram; {@code maxValues} for exact). An option of the other kind is a problem rather than
 * ignored, since it says the file means something the window will not do.
 */
final class StatsReader {

  private StatsReader() {}

  /** The statistics window of {@code m}, or null when it has a problem (reported). */
  static StatsSpec read(YamlMap m, WindowReader windows) {
    Problems problems = windows.problems();
    int before = problems.count();
    String kind = m.has("kind")
        ? Scalars.choice(m.value("kind"), m.path("kind"), problems, "histogram", "exact")
        : "histogram";
    Duration length = windows.length(m);
    if (kind == null) {
      return null;
    }
    String other = kind.equals("exact") ? "histogram" : "exact";
    for (String key : kind.equals("exact") ? List.of("panes", "accuracy", "trackedRange")
        : List.of("maxValues")) {
      if (m.has(key)) {
        problems.at(m.keyNode(key), m.path(key) + " applies to kind " + other + " only; remove"
            + " it or set kind: " + other);
      }
    }
    if (kind.equals("exact")) {
      int maxValues = (int) m.integer("maxValues", StatsSpec.DEFAULT_MAX_VALUES, 1,
          StatsSpec.MAX_VALUES);
      return problems.count() > before ? null
          : windows.core(m.value("window"), m.path(),
              () -> StatsSpec.exact(length).withMaxValues(maxValues));
    }
    int panes = windows.panes(m);
    Double accuracy = m.has("accuracy") ? accuracy(m, problems) : null;
    double[] range = m.has("trackedRange") ? range(m, problems) : null;
    if (problems.count() > before) {
      return null;
    }
    StatsSpec spec = windows.core(m.has("panes") ? m.value("panes") : m.value("window"),
        m.path(), () -> StatsSpec.histogram(length, panes));
    if (spec != null && accuracy != null) {
      StatsSpec s = spec;
      spec = windows.core(m.value("accuracy"), m.path(), () -> s.withRelativeAccuracy(accuracy));
    }
    if (spec != null && range != null) {
      StatsSpec s = spec;
      spec = windows.core(m.value("trackedRange"), m.path(),
          () -> s.withTrackedRange(range[0], range[1]));
    }
    return spec;
  }

  private static Double accuracy(YamlMap m, Problems problems) {
    Double a = Scalars.number(m.value("accuracy"), m.path("accuracy"), problems);
    if (a != null && (a < LogBuckets.MIN_RELATIVE_ACCURACY
        || a > LogBuckets.MAX_RELATIVE_ACCURACY)) {
      problems.at(m.value("accuracy"), m.path("accuracy") + " must be "
          + LogBuckets.MIN_RELATIVE_ACCURACY + " to " + LogBuckets.MAX_RELATIVE_ACCURACY
          + " (0.01 is 1%), was " + a);
      return null;
    }
    return a;
  }

  private static double[] range(YamlMap m, Problems problems) {
    Node node = m.value("trackedRange");
    String path = m.path("trackedRange");
    List<Node> ends = Scalars.list(node, path, problems, "[1e-9, 1e15]");
    if (ends == null) {
      return null;
    }
    if (ends.size() != 2) {
      problems.at(node, path + " must be two numbers [smallest, largest magnitude], e.g."
          + " [1e-9, 1e15], was a list of " + ends.size());
      return null;
    }
    Double min = Scalars.number(ends.get(0), path + "[0]", problems);
    Double max = Scalars.number(ends.get(1), path + "[1]", problems);
    return min == null || max == null ? null : new double[] {min, max};
  }
}
