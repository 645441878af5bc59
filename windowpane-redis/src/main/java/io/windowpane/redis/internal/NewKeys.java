package io.windowpane.redis.internal;

import io.windowpane.KeyCreationRefusedException;
import java.util.List;

/**
 * Writes the memory guard refused because they would have created a key: a single call's
 * {@code WPNOKEY} error, a batch item's {@code -2}. In the engine's batch answers a refused item
 * is {@code null} until it reaches its caller as a {@link KeyCreationRefusedException}.
 */
final class NewKeys {

  /** A batch item's reply for a refused creation. */
  static final long REFUSED = -2;

  private NewKeys() {}

  static KeyCreationRefusedException refused(String what, String key) {
    return new KeyCreationRefusedException(what + ": key " + key + " does not exist and Redis is"
        + " under memory pressure, so it is not created; nothing recorded (existing keys keep"
        + " working)");
  }

  /**
   * {@code answers} as the answer of a whole batch: itself when no item was refused, else a
   * {@link KeyCreationRefusedException} carrying every answer ({@code null} for the refused
   * items; the others were applied, once), named by the first refused item.
   */
  static <T> List<T> whole(List<T> answers, List<String> keys, String what) {
    if (!answers.contains(null)) {
      return answers;
    }
    throw KeyCreationRefusedException.ofBatch(what, keys, answers, "the key does not exist and"
        + " Redis is under memory pressure, so it is not created", null);
  }
}
