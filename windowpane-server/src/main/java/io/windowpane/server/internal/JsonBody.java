package io.windowpane.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * One request body, read as a JSON object, with typed accessors that check each field and name
 * it in the error. Unknown fields are refused, so a typo ({@code "permit"}) is a 400 rather than
 * a silent default. Every check runs before the engine is called: a refused request records
 * nothing.
 */
final class JsonBody {

  private final ObjectNode node;
  private final String prefix;
  private final Limits limits;

  private JsonBody(ObjectNode node, String prefix, Limits limits) {
    this.node = node;
    this.prefix = prefix;
    this.limits = limits;
  }

  /** Parses {@code bytes} as one JSON object that may hold only {@code allowed} fields. */
  static JsonBody parse(byte[] bytes, Limits limits, Set<String> allowed) {
    if (bytes.length == 0) {
      throw ApiError.malformed("the body must be a JSON object, and it is empty");
    }
    JsonNode parsed;
    try {
      parsed = Json.MAPPER.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw ApiError.malformed("the body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw ApiError.malformed("the body could not be read: " + e.getMessage());
    }
    if (parsed == null || !parsed.isObject()) {
      throw ApiError.malformed("the body must be a JSON object, was "
          + (parsed == null ? "empty" : parsed.getNodeType().toString().toLowerCase()));
    }
    JsonBody body = new JsonBody((ObjectNode) parsed, "", limits);
    body.onlyFields(allowed);
    return body;
  }

  private void onlyFields(Set<String> allowed) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw ApiError.invalid(prefix + name, "unknown field '" + prefix + name
            + "'; allowed: " + String.join(", ", new java.util.TreeSet<>(allowed)));
      }
    }
  }

  boolean has(String field) {
    JsonNode value = node.get(field);
    return value != null && !value.isNull();
  }

  /** A key: a string of 1 to {@code maxKeyLength} characters. */
  String key(String field) {
    return key(required(field), prefix + field);
  }

  private String key(JsonNode value, String path) {
    if (!value.isTextual()) {
      throw ApiError.invalid(path, path + " must be a string of 1 to " + limits.maxKeyLength()
          + " characters, was " + describe(value));
    }
    return Limits.checkKey(path, value.textValue(), limits.maxKeyLength());
  }

  /** A list of 1 to {@code maxBatch} keys. */
  List<String> keys(String field) {
    JsonNode array = array(field, limits.maxBatch());
    List<String> keys = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      keys.add(key(array.get(i), prefix + field + "[" + i + "]"));
    }
    return keys;
  }

  /** An integer in [min, max], or {@code otherwise} when the field is absent or null. */
  long integer(String field, long min, long max, long otherwise) {
    if (!has(field)) {
      return otherwise;
    }
    JsonNode value = node.get(field);
    String path = prefix + field;
    if (!value.isIntegralNumber() || !value.canConvertToLong()
        || value.longValue() < min || value.longValue() > max) {
      throw ApiError.invalid(path, path + " must be an integer in [" + min + ", " + max
          + "], was " + describe(value));
    }
    return value.longValue();
  }

  /** A finite number. */
  double number(String field) {
    return number(required(field), prefix + field);
  }

  private static double number(JsonNode value, String path) {
    if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
      throw ApiError.invalid(path, path + " must be a finite number, was " + describe(value));
    }
    return value.doubleValue();
  }

  /** A list of 1 to {@code max} finite numbers. */
  double[] numbers(String field, int max) {
    JsonNode array = array(field, max);
    double[] values = new double[array.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = number(array.get(i), prefix + field + "[" + i + "]");
    }
    return values;
  }

  /** A list of 1 to {@code maxBatch} objects, each allowed only {@code allowed} fields. */
  List<JsonBody> objects(String field, Set<String> allowed) {
    JsonNode array = array(field, limits.maxBatch());
    List<JsonBody> objects = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode item = array.get(i);
      String path = prefix + field + "[" + i + "]";
      if (!item.isObject()) {
        throw ApiError.invalid(path, path + " must be an object, was " + describe(item));
      }
      JsonBody body = new JsonBody((ObjectNode) item, path + ".", limits);
      body.onlyFields(allowed);
      objects.add(body);
    }
    return objects;
  }

  private JsonNode array(String field, int max) {
    JsonNode value = required(field);
    String path = prefix + field;
    if (!value.isArray() || value.size() < 1 || value.size() > max) {
      throw ApiError.invalid(path, path + " must be a list of 1 to " + max + " entries, was "
          + (value.isArray() ? "a list of " + value.size() : describe(value)));
    }
    return value;
  }

  private JsonNode required(String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw ApiError.invalid(prefix + field, prefix + field + " is required");
    }
    return value;
  }

  /** The path of {@code field} in this body, for messages. */
  String path(String field) {
    return prefix + field;
  }

  private static String describe(JsonNode value) {
    String text = value.toString();
    return text.length() > 40 ? text.substring(0, 40) + "..." : text;
  }
}
