package io.windowpane.config;

import io.windowpane.Leasing;
import io.windowpane.Limit;
import io.windowpane.Quota;
import java.time.Duration;

/**
 * Reads a limiter's {@code leasing} block (docs/leasing.md): {@code enabled} (default true when
 * the block is there), {@code maxShare} (more than 0, at most 1), {@code maxSlice} (1 to
 * {@value Limit#MAX_PERMITS}) and {@code logLifetime} (1 ms to 1 minute); an option left out
 * keeps {@link Leasing#defaults()}'s value. Every value is checked even when {@code enabled} is
 * false, so turning leasing on later cannot reveal a bad value. Each problem names the field's
 * path and its range, at the value's line.
 */
final class LeasingReader {

  private LeasingReader() {}

  /**
   * {@code quota} with the leasing of {@code m} when it is enabled, {@code quota} itself when
   * it is not, or null when the block has a problem (reported).
   */
  static Quota apply(YamlMap m, Quota quota, Problems problems) {
    int before = problems.count();
    boolean enabled = m.bool("enabled", true);
    Leasing leasing = Leasing.defaults();
    if (m.has("maxShare")) {
      Double share = Scalars.number(m.value("maxShare"), m.path("maxShare"), problems);
      if (share != null && !(share > 0 && share <= 1)) {
        problems.at(m.value("maxShare"), m.path("maxShare") + " must be more than 0 and at most"
            + " 1 (0.1 is a tenth of the room left), was " + share);
      } else if (share != null) {
        leasing = leasing.maxShare(share);
      }
    }
    long slice = m.integer("maxSlice", 0, 1, Limit.MAX_PERMITS);
    if (slice > 0) {
      leasing = leasing.maxSlice(slice);
    }
    Duration lifetime = m.duration("logLifetime", null, Duration.ofMillis(1),
        Duration.ofMillis(Leasing.MAX_LOG_LIFETIME_MILLIS));
    if (lifetime != null) {
      leasing = leasing.logLifetime(lifetime);
    }
    if (problems.count() > before || quota == null) {
      return null;
    }
    return enabled ? quota.withLeasing(leasing) : quota;
  }
}
