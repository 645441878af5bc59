package io.windowpane.config;

import java.io.StringReader;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/*
 * Design note: the text is only ever composed into a node tree (SnakeYAML's compose step), never
 * constructed into objects, so no tag can make the loader instantiate a type. SnakeYAML's default
 * TagInspector already stops composing at the first global tag ("!!java.io.File"); the node tree
 * then goes through a whitelist of tags anyway (catching local tags like "!custom" and standard
 * ones this format has no use for, like "!!binary"), so that a tagged value is refused loudly
 * instead of being read as its text. The standard scalar tags the resolver assigns by itself
 * (str, int, float, bool, null, timestamp) and the two collection tags pass; merge keys
 * ("<<: *defaults") are refused because they would hide where a value came from. Duplicate
 * keys, which compose keeps, are reported by YamlMap.
 */

/** Turns configuration text into the root node of its one YAML document. */
public final class YamlDocument {

  private static final Set<Tag> ALLOWED = Set.of(Tag.STR, Tag.INT, Tag.FLOAT, Tag.BOOL,
      Tag.NULL, Tag.TIMESTAMP, Tag.MAP, Tag.SEQ);
  private static final String GLOBAL_TAG_REFUSED = "Global tag is not allowed:";

  private YamlDocument() {}

  /**
   * The root node of {@code yaml}, which must hold exactly one non-empty document of plain
   * values.
   *
   * @throws ConfigException when the text is not YAML, is empty, holds several documents or
   *     carries a tag outside the standard ones
   */
  public static Node compose(String yaml, String file) throws ConfigException {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(true); // reported with their lines by YamlMap
    options.setMaxAliasesForCollections(50);
    options.setNestingDepthLimit(50);
    Problems problems = new Problems(file);
    Node root;
    try {
      Iterator<Node> documents =
          new Yaml(new SafeConstructor(options)).composeAll(new StringReader(yaml)).iterator();
      root = documents.hasNext() ? documents.next() : null;
      if (root != null && documents.hasNext()) {
        Node second = documents.next();
        problems.at(second, "the file holds more than one YAML document (---):"
            + " put the whole configuration in one");
        problems.throwIfAny();
      }
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String problem = e.getProblem() == null ? "" : e.getProblem();
      if (problem.startsWith(GLOBAL_TAG_REFUSED)) { // SnakeYAML's own TagInspector refused it
        problem = tagProblem(problem.substring(GLOBAL_TAG_REFUSED.length()).trim());
      } else {
        problem = "not valid YAML: " + (e.getContext() == null ? "" : e.getContext() + "; ")
            + problem;
      }
      problems.at(mark == null ? 0 : mark.getLine() + 1, problem);
      throw problems.toException();
    } catch (YAMLException e) {
      throw new ConfigException(file, "not valid YAML: " + e.getMessage());
    }
    if (root == null || (Scalars.isNull(root) && !(root instanceof MappingNode))) {
      throw new ConfigException(file, "the file is empty: give at least one of server, auth,"
          + " engine, limiters, counters, stats");
    }
    checkTags(root, problems, Collections.newSetFromMap(new IdentityHashMap<>()));
    problems.throwIfAny();
    return root;
  }

  private static String tagProblem(String tag) {
    return "the tag " + tag + " is not allowed: the configuration holds plain strings, numbers,"
        + " lists and mappings only";
  }

  private static void checkTags(Node node, Problems problems, Set<Node> seen) {
    if (!seen.add(node)) {
      return; // an alias of a node already checked
    }
    if (Tag.MERGE.equals(node.getTag())) {
      problems.at(node, "merge keys (<<) are not supported: write each value out");
    } else if (!ALLOWED.contains(node.getTag())) {
      problems.at(node, tagProblem(node.getTag().getValue()));
    }
    if (node instanceof MappingNode) {
      for (NodeTuple t : ((MappingNode) node).getValue()) {
        checkTags(t.getKeyNode(), problems, seen);
        checkTags(t.getValueNode(), problems, seen);
      }
    } else if (node instanceof SequenceNode) {
      for (Node item : ((SequenceNode) node).getValue()) {
        checkTags(item, problems, seen);
      }
    }
  }
}
