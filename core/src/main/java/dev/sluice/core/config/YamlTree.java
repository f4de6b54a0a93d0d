package dev.sluice.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.StringReader;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads one YAML document into a Jackson tree the way PyYAML (and so Ray Serve) reads it: YAML
 * 1.1 scalars, an alias ({@code *base}) as a copy of its anchor's value ({@code &base}), and a
 * merge key ({@code <<: *base}, or a list of them) adding the fields of those mappings that the
 * mapping does not set itself. (Jackson's own YAML reader gives an alias as its anchor's name, a
 * string: a config that shares a section by anchor would be read wrong without a word.)
 *
 * <p>Refused, naming the field: a value that contains itself, a merge of something that is not
 * a mapping, a key given twice, a key that is not a scalar, more than one document, and aliases
 * that copy more than {@value #MAX_COPIED_VALUES} values in all (a "billion laughs" bomb would
 * otherwise take the heap of the node reading it). SnakeYAML's own limits stay on: nesting
 * depth 50, 3 MB of text.
 */
final class YamlTree {

  /** The most values aliases may copy into one document. */
  static final int MAX_COPIED_VALUES = 100_000;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String what;
  private final Scalars scalars;
  /** Each node read so far (an alias is the same node again), and the values it holds. */
  private final Map<Node, JsonNode> read = new IdentityHashMap<>();
  private final Map<Node, Integer> sizes = new IdentityHashMap<>();
  private final Set<Node> reading = Collections.newSetFromMap(new IdentityHashMap<>());
  private int copied;

  private YamlTree(String what, LoaderOptions options) {
    this.what = what;
    this.scalars = new Scalars(options);
  }

  /** The document's tree, or a missing node when the text holds none. */
  static JsonNode read(String text, String what) {
    LoaderOptions options = new LoaderOptions();
    // Aliases are bounded by the values they copy (below), not by their number.
    options.setMaxAliasesForCollections(Integer.MAX_VALUE);
    Node document;
    try {
      Iterator<Node> documents = new Yaml(options).composeAll(new StringReader(text)).iterator();
      if (!documents.hasNext()) {
        return MissingNode.getInstance();
      }
      document = documents.next();
      if (documents.hasNext()) {
        throw new ConfigException(what + ": more than one YAML document (expected: one; "
            + "remove the '---' that starts the next)");
      }
    } catch (MarkedYAMLException e) {
      String at = e.getProblemMark() == null ? "" : " (line " + (e.getProblemMark().getLine()
          + 1) + ", column " + (e.getProblemMark().getColumn() + 1) + ")";
      throw new ConfigException(what + " is not valid YAML/JSON: " + e.getProblem() + at, e);
    } catch (ConfigException e) {
      throw e;
    } catch (RuntimeException e) {
      // SnakeYAML's YAMLException, and what its parser lets through: a malformed tag (!%2) is
      // an IllegalArgumentException.
      throw new ConfigException(what + " is not valid YAML/JSON: " + e.getMessage(), e);
    }
    return new YamlTree(what, options).value(document, "");
  }

  private JsonNode value(Node node, String path) {
    JsonNode seen = read.get(node);
    if (seen != null) {
      copied += sizes.get(node);
      if (copied > MAX_COPIED_VALUES) {
        throw new ConfigException(where(path) + ": YAML aliases copy more than "
            + MAX_COPIED_VALUES + " values in all (expected: aliases that share a few sections)");
      }
      return seen.deepCopy();
    }
    if (!reading.add(node)) {
      throw new ConfigException(where(path) + ": an alias inside the value it names (expected: "
          + "a value that does not contain itself)");
    }
    int[] size = {1};
    JsonNode value;
    if (node instanceof MappingNode mapping) {
      value = object(mapping, path, size);
    } else if (node instanceof SequenceNode sequence) {
      ArrayNode array = NODES.arrayNode();
      for (Node item : sequence.getValue()) {
        array.add(value(item, path + "[" + array.size() + "]"));
        size[0] += sizes.get(item);
      }
      value = array;
    } else {
      value = scalar((ScalarNode) node, path);
    }
    reading.remove(node);
    read.put(node, value);
    sizes.put(node, size[0]);
    return value;
  }

  private ObjectNode object(MappingNode mapping, String path, int[] size) {
    ObjectNode object = NODES.objectNode();
    List<JsonNode> merged = new ArrayList<>();
    boolean merges = false;
    for (NodeTuple entry : mapping.getValue()) {
      if (!(entry.getKeyNode() instanceof ScalarNode key)) {
        throw new ConfigException(where(path) + ": a key that is not a scalar (expected: "
            + "field names)");
      }
      String name = key.getValue();
      String field = path.isEmpty() ? name : path + "." + name;
      boolean merge = key.getTag().equals(Tag.MERGE);
      if (merge ? merges : object.has(name)) {
        throw new ConfigException(field + ": given twice (expected: each key once)");
      }
      JsonNode value = value(entry.getValueNode(), field);
      size[0] += sizes.get(entry.getValueNode());
      if (merge) {
        merges = true;
        merged.addAll(mappings(value, field));
      } else {
        object.set(name, value);
      }
    }
    // The keys set here win, then the merged mappings in their order (YAML's merge key type).
    for (JsonNode fields : merged) {
      fields.properties().forEach(e -> object.putIfAbsent(e.getKey(), e.getValue()));
    }
    return object;
  }

  private static List<JsonNode> mappings(JsonNode value, String field) {
    List<JsonNode> mappings = new ArrayList<>();
    if (value.isObject()) {
      mappings.add(value);
    } else if (value.isArray()) {
      value.forEach(mappings::add);
    }
    if (mappings.isEmpty() || !mappings.stream().allMatch(JsonNode::isObject)) {
      throw new ConfigException(field + ": expected a mapping to merge, or a list of them "
          + "(e.g. <<: *defaults)");
    }
    return mappings;
  }

  private JsonNode scalar(ScalarNode node, String path) {
    Object value;
    try {
      value = scalars.value(node);
    } catch (RuntimeException e) {  // SnakeYAML's, and a number it parses too large for an int
      throw new ConfigException(where(path) + ": " + node.getValue() + " cannot be read as "
          + node.getTag().getValue() + " (" + String.valueOf(e.getMessage()).lines().findFirst()
          .orElse("") + ")", e);
    }
    if (value == null) {
      return NODES.nullNode();
    } else if (value instanceof String text) {
      return NODES.textNode(text);
    } else if (value instanceof Boolean flag) {
      return NODES.booleanNode(flag);
    } else if (value instanceof Integer number) {
      return NODES.numberNode(number);
    } else if (value instanceof Long number) {
      return NODES.numberNode(number);
    } else if (value instanceof BigInteger number) {
      return NODES.numberNode(number);
    } else if (value instanceof Double number) {
      return NODES.numberNode(number);
    } else if (value instanceof byte[] bytes) {
      return NODES.binaryNode(bytes);
    }
    throw new ConfigException(where(path) + ": " + node.getValue() + " (expected: a string, "
        + "number, boolean or null)");
  }

  private String where(String path) {
    return path.isEmpty() ? what : path;
  }

  /**
   * YAML 1.1's scalars as PyYAML's safe loader reads them, except that a timestamp stays text
   * (and so does a {@code <<} that is a value, not a key).
   */
  private static final class Scalars extends SafeConstructor {

    Scalars(LoaderOptions options) {
      super(options);
      yamlConstructors.put(Tag.TIMESTAMP, new ConstructYamlStr());
      yamlConstructors.put(Tag.MERGE, new ConstructYamlStr());
    }

    Object value(ScalarNode node) {
      return constructObject(node);
    }
  }
}
