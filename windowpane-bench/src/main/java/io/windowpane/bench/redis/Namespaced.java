package io.windowpane.bench.redis;

/** Prefixes keys with a contender's namespace, once, before measurement. */
final class Namespaced {

  private Namespaced() {}

  static String[] keys(String namespace, String[] keys) {
    String[] prefixed = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      prefixed[i] = namespace + keys[i];
    }
    return prefixed;
  }
}
