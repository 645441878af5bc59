package io.windowpane.config;

import io.windowpane.etcd.EtcdEngine;
import java.time.Duration;
import java.util.List;

/**
 * The {@code engine.etcd} block, validated: the members' client URLs and every option of
 * {@link EtcdEngine.Builder} a file can set. Null options keep the engine's own default, except
 * the timeouts, which the service states (the engine's: 5 s and 2 s). {@code password} is the
 * literal or the value of {@code passwordEnv}; {@link #toString()} leaves it out.
 */
public record EtcdSettings(List<String> endpoints, String user, String password, String namespace,
    Duration timeout, Duration connectTimeout, Duration expiryGrace, Integer conflictRetries,
    Duration backoffBase, Duration backoffMax, Integer maxValueBytes, Duration cachedCounts) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  public static final String DEFAULT_NAMESPACE = "windowpane";
  /** The engine's backoff defaults, needed when a file sets only one of the pair. */
  public static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(2);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMillis(200);

  /** No endpoint yet, every option at its default. */
  public static final EtcdSettings DEFAULTS = new EtcdSettings(List.of(), null, null, DEFAULT_NAMESPACE,
      DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, null, null, null, null, null, null);

  public EtcdSettings {
    endpoints = List.copyOf(endpoints);
  }

  /** The same options for the members at {@code urls}. */
  public EtcdSettings withEndpoints(List<String> urls) {
    return new EtcdSettings(urls, user, password, namespace, timeout, connectTimeout,
        expiryGrace, conflictRetries, backoffBase, backoffMax, maxValueBytes, cachedCounts);
  }

  /** A builder with every option set here; connecting is left to {@code build()}. */
  public EtcdEngine.Builder builder() {
    EtcdEngine.Builder b = EtcdEngine.builder()
        .endpoints(endpoints.toArray(new String[0]))
        .namespace(namespace)
        .timeout(timeout)
        .connectTimeout(connectTimeout);
    if (user != null) {
      b.credentials(user, password);
    }
    if (expiryGrace != null) {
      b.expiryGrace(expiryGrace);
    }
    if (conflictRetries != null) {
      b.conflictRetries(conflictRetries);
    }
    if (backoffBase != null || backoffMax != null) {
      b.backoff(backoffBase != null ? backoffBase : DEFAULT_BACKOFF_BASE,
          backoffMax != null ? backoffMax : DEFAULT_BACKOFF_MAX);
    }
    if (maxValueBytes != null) {
      b.maxValueBytes(maxValueBytes);
    }
    if (cachedCounts != null) {
      b.cachedCounts(cachedCounts);
    }
    return b;
  }

  @Override
  public String toString() {
    return "EtcdSettings[endpoints=" + String.join(",", endpoints) + ", user=" + user
        + ", password=" + (password == null ? "none" : "(set)") + ", namespace=" + namespace
        + ", timeout=" + timeout + ", connectTimeout=" + connectTimeout + ", expiryGrace="
        + expiryGrace + ", conflictRetries=" + conflictRetries + ", backoff=" + backoffBase + "/"
        + backoffMax + ", maxValueBytes=" + maxValueBytes + ", cachedCounts=" + cachedCounts
        + "]";
  }
}
