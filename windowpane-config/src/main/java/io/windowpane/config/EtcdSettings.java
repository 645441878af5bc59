package io.windowpane.config;

import io.windowpane.spi.EngineSettings;
import java.time.Duration;
import java.util.List;

/**
 * The {@code engine.etcd} block, validated: the members' client URLs and every option of the
 * etcd engine's builder a file can set. Null options keep the engine's own default, except
 * the timeouts, which the service states (the engine's: 5 s and 2 s). Plain values only: the
 * etcd engine's provider (module windowpane-etcd) turns {@link #engineSettings()} into its
 * builder. {@code password} is the literal or the value of {@code passwordEnv};
 * {@link #toString()} leaves it out.
 */
record EtcdSettings(List<String> endpoints, String user, String password, String namespace,
    Duration timeout, Duration connectTimeout, Duration expiryGrace, Integer conflictRetries,
    Duration backoffBase, Duration backoffMax, Integer maxValueBytes, Integer maxTxnOps,
    Duration cachedCounts) {

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final String DEFAULT_NAMESPACE = "windowpane";
  /** The engine's backoff defaults, needed when a file sets only one of the pair. */
  static final Duration DEFAULT_BACKOFF_BASE = Duration.ofMillis(2);
  static final Duration DEFAULT_BACKOFF_MAX = Duration.ofMillis(200);

  /** No endpoint yet, every option at its default. */
  static final EtcdSettings DEFAULTS = new EtcdSettings(List.of(), null, null, DEFAULT_NAMESPACE,
      DEFAULT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, null, null, null, null, null, null, null);

  EtcdSettings {
    endpoints = List.copyOf(endpoints);
  }

  /** The same options for the members at {@code urls}. */
  EtcdSettings withEndpoints(List<String> urls) {
    return new EtcdSettings(urls, user, password, namespace, timeout, connectTimeout,
        expiryGrace, conflictRetries, backoffBase, backoffMax, maxValueBytes, maxTxnOps,
        cachedCounts);
  }

  /**
   * The options for the provider, under the names of the block: {@code endpoints},
   * {@code user}, {@code password}, {@code namespace}, {@code timeout}, {@code connectTimeout},
   * and when given {@code expiryGrace}, {@code conflictRetries}, {@code backoffBase} and
   * {@code backoffMax} (both, the other at its default, when either is given),
   * {@code maxValueBytes}, {@code maxTxnOps} and {@code cachedCounts}.
   */
  EngineSettings engineSettings() {
    EngineSettings.Builder s = EngineSettings.of("etcd")
        .texts("endpoints", endpoints)
        .text("user", user)
        .text("password", password)
        .text("namespace", namespace)
        .duration("timeout", timeout)
        .duration("connectTimeout", connectTimeout)
        .duration("expiryGrace", expiryGrace)
        .integer("conflictRetries", conflictRetries);
    if (backoffBase != null || backoffMax != null) {
      s.duration("backoffBase", backoffBase != null ? backoffBase : DEFAULT_BACKOFF_BASE)
          .duration("backoffMax", backoffMax != null ? backoffMax : DEFAULT_BACKOFF_MAX);
    }
    return s.integer("maxValueBytes", maxValueBytes)
        .integer("maxTxnOps", maxTxnOps)
        .duration("cachedCounts", cachedCounts)
        .build();
  }

  @Override
  public String toString() {
    return "EtcdSettings[endpoints=" + String.join(",", endpoints) + ", user=" + user
        + ", password=" + (password == null ? "none" : "(set)") + ", namespace=" + namespace
        + ", timeout=" + timeout + ", connectTimeout=" + connectTimeout + ", expiryGrace="
        + expiryGrace + ", conflictRetries=" + conflictRetries + ", backoff=" + backoffBase + "/"
        + backoffMax + ", maxValueBytes=" + maxValueBytes + ", maxTxnOps=" + maxTxnOps
        + ", cachedCounts=" + cachedCounts + "]";
  }
}
