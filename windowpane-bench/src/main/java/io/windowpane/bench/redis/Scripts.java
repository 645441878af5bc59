package io.windowpane.bench.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The peers' Lua scripts, read from resource files next to this class. */
final class Scripts {

  private Scripts() {}

  /** The text of {@code name} (e.g. {@code "zset-sliding-log.lua"}). */
  static String text(String name) {
    try (InputStream in = Scripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("script resource missing: " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
