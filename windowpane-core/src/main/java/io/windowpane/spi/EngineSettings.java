package io.windowpane.spi;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The options of one engine as a configuration gives them to an {@link EngineProvider}: the
 * engine's block ({@code engine.redis}, {@code engine.etcd}) under the configuration's own
 * names, each value already parsed and checked. A value is text, a list of texts, a
 * {@link Duration} or an integer; an option left out of the configuration is absent, and the
 * engine's default applies. Immutable and thread-safe.
 *
 * <p>{@link #toString()} names the options and shows durations and integers, never texts (a
 * URI may hold credentials, a password is text).
 */
public final class EngineSettings {

  private final String kind;
  private final Map<String, Object> values;

  private EngineSettings(String kind, Map<String, Object> values) {
    this.kind = kind;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** Settings for the engine {@code kind}, filled by the returned builder. */
  public static Builder of(String kind) {
    if (kind == null || kind.isEmpty()) {
      throw new IllegalArgumentException("kind must be non-empty, e.g. redis");
    }
    return new Builder(kind);
  }

  /** The engine kind these settings are for: {@code redis}, {@code etcd}. */
  public String kind() {
    return kind;
  }

  /** The names of the options given, in the order they were put. */
  public Set<String> names() {
    return values.keySet();
  }

  /** Whether the option {@code name} is given. */
  /**
   * Checks that every option is one of {@code known}, the options a provider's engine takes.
   *
   * @throws IllegalArgumentException naming the first unknown option and every known one
   */
  public void requireOnly(Set<String> known) {
    for (String name : names()) {
      if (!known.contains(name)) {
        throw new IllegalArgumentException(kind() + " option " + name + " is unknown; the "
            + kind() + " engine takes " + String.join(", ", new java.util.TreeSet<>(known)));
      }
    }
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  /** The text option {@code name}; empty when absent. */
  public Optional<String> text(String name) {
    return Optional.ofNullable(get(name, String.class, "text"));
  }

  /** The list option {@code name}; empty when absent. */
  @SuppressWarnings("unchecked")
  public List<String> texts(String name) {
    List<String> v = get(name, List.class, "a list of texts");
    return v == null ? List.of() : v;
  }

  /** The duration option {@code name}; empty when absent. */
  public Optional<Duration> duration(String name) {
    return Optional.ofNullable(get(name, Duration.class, "a duration"));
  }

  /** The integer option {@code name}; empty when absent. */
  public OptionalInt integer(String name) {
    Integer v = get(name, Integer.class, "an integer");
    return v == null ? OptionalInt.empty() : OptionalInt.of(v);
  }

  private <T> T get(String name, Class<T> type, String what) {
    Object v = values.get(name);
    if (v != null && !type.isInstance(v)) {
      throw new IllegalArgumentException(kind + " option " + name + " must be " + what
          + ", was a " + v.getClass().getSimpleName());
    }
    return type.cast(v);
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("EngineSettings[").append(kind);
    values.forEach((name, v) -> out.append(", ").append(name)
        .append(v instanceof Duration || v instanceof Integer ? "=" + v : ""));
    return out.append(']').toString();
  }

  /** Collects the options; not thread-safe. */
  public static final class Builder {
    private final String kind;
    private final Map<String, Object> values = new LinkedHashMap<>();

    private Builder(String kind) {
      this.kind = kind;
    }

    /** Sets the text option {@code name}; a null {@code value} leaves it absent. */
    public Builder text(String name, String value) {
      return put(name, value);
    }

    /** Sets the list option {@code name}; a null {@code value} leaves it absent. */
    public Builder texts(String name, List<String> value) {
      return put(name, value == null ? null : List.copyOf(value));
    }

    /** Sets the duration option {@code name}; a null {@code value} leaves it absent. */
    public Builder duration(String name, Duration value) {
      return put(name, value);
    }

    /** Sets the integer option {@code name}; a null {@code value} leaves it absent. */
    public Builder integer(String name, Integer value) {
      return put(name, value);
    }

    private Builder put(String name, Object value) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("option name must be non-empty");
      }
      if (value == null) {
        values.remove(name);
      } else {
        values.put(name, value);
      }
      return this;
    }

    public EngineSettings build() {
      return new EngineSettings(kind, values);
    }
  }
}
