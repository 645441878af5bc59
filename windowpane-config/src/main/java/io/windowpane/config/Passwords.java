package io.windowpane.config;

import java.util.function.UnaryOperator;

/**
 * The {@code password} / {@code passwordEnv} pair of the Redis and etcd blocks: a literal, or
 * the name of an environment variable that holds it (so the secret stays out of the file). The
 * value is never part of a problem's text.
 */
final class Passwords {

  private Passwords() {}

  /**
   * The literal {@code password} of {@code m}, or the value of the variable {@code passwordEnv}
   * names (looked up with {@code env}); null when neither is given or one is wrong (reported).
   */
  static String read(YamlMap m, Problems problems, UnaryOperator<String> env) {
    if (m.has("password") && m.has("passwordEnv")) {
      problems.at(m.keyNode("passwordEnv"), m.path() + " takes password or passwordEnv, not"
          + " both");
      return null;
    }
    if (!m.has("passwordEnv")) {
      return m.text("password", null);
    }
    String name = m.text("passwordEnv", null);
    if (name == null) {
      return null;
    }
    String value = env.apply(name);
    if (value == null || value.isEmpty()) {
      problems.at(m.value("passwordEnv"), m.path("passwordEnv") + ": the environment variable "
          + name + (value == null ? " is not set" : " is empty"));
      return null;
    }
    return value;
  }

  /** Whether {@code m} tries to give a password, even one with a problem. */
  static boolean given(YamlMap m) {
    return m.has("password") || m.has("passwordEnv");
  }
}
