package io.windowpane.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code engine.etcd} block. The ranges are those of the etcd engine's builder
 * ({@code EtcdEngine.Builder}), checked here so that each problem has its line, and so that a
 * file can be checked without the etcd module on the class path. Endpoints must be
 * {@code http://host:port}: the engine takes no TLS settings yet, and jetcd would speak plain
 * text to an {@code https://} URL, so one is refused with that reason rather than failing at
 * the first call.
 */
public final class EtcdReader {

  static final String EXAMPLE = "[ \"http://127.0.0.1:2379\" ]";
  /** The engine's rule for a namespace, the first segment of every key. */
  private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
  private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(1);
  private static final Duration MAX_GRACE = Duration.ofDays(366);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  private static final Duration MIN_CACHE = Duration.ofMillis(10);
  private static final Duration MAX_CACHE = Duration.ofMinutes(1);
  private static final Duration MS = Duration.ofMillis(1);

  private EtcdReader() {}

  /** The block {@code node}; {@code env} looks up {@code passwordEnv}. */
  static EtcdSettings read(Node node, String path, Problems problems,
      UnaryOperator<String> env) {
    YamlMap m = YamlMap.fields(node, path, problems, "endpoints", "user", "password",
        "passwordEnv", "namespace", "timeout", "connectTimeout", "expiryGrace",
        "conflictRetries", "backoffBase", "backoffMax", "maxValueBytes", "maxTxnOps",
        "cachedCounts");
    List<String> endpoints = new ArrayList<>();
    if (!m.has("endpoints")) {
      if (m.isMapping()) {
        m.missing("endpoints", EXAMPLE);
      }
    } else {
      List<Node> items = Scalars.list(m.value("endpoints"), m.path("endpoints"), problems,
          EXAMPLE);
      if (items != null && items.isEmpty()) {
        problems.at(m.value("endpoints"), m.path("endpoints") + " must hold at least one URL,"
            + " e.g. " + EXAMPLE);
      }
      for (int i = 0; items != null && i < items.size(); i++) {
        String itemPath = m.path("endpoints") + "[" + i + "]";
        String url = Scalars.text(items.get(i), itemPath, problems);
        String problem = url == null ? null : endpointProblem(url);
        if (problem != null) {
          problems.at(items.get(i), itemPath + " " + problem);
        } else if (url != null) {
          endpoints.add(url);
        }
      }
    }
    String user = m.text("user", null);
    String password = Passwords.read(m, problems, env);
    if (m.has("user") && !Passwords.given(m)) {
      problems.at(m.value("user"), m.path("user") + " needs a password: add password or"
          + " passwordEnv");
    }
    if (Passwords.given(m) && !m.has("user")) {
      problems.at(m.keyNode(m.has("password") ? "password" : "passwordEnv"), m.path()
          + " has a password but no user: etcd authenticates a user, add user");
    }
    String namespace = m.text("namespace", EtcdSettings.DEFAULT_NAMESPACE);
    if (!NAMESPACE.matcher(namespace).matches()) {
      problems.at(m.value("namespace"), m.path("namespace") + " must be 1 to 64 characters of"
          + " [A-Za-z0-9_.:-], was '" + namespace + "'");
    }
    Duration timeout = m.duration("timeout", EtcdSettings.DEFAULT_TIMEOUT, MS, MAX_TIMEOUT);
    Duration connect = m.duration("connectTimeout", EtcdSettings.DEFAULT_CONNECT_TIMEOUT, MS,
        MAX_CONNECT_TIMEOUT);
    Duration grace = m.duration("expiryGrace", null, Duration.ZERO, MAX_GRACE);
    Integer retries = m.has("conflictRetries")
        ? (int) m.integer("conflictRetries", 64, 0, 1_000) : null;
    Duration base = m.duration("backoffBase", null, MS, MAX_BACKOFF);
    Duration max = m.duration("backoffMax", null, MS, MAX_BACKOFF);
    Duration effectiveBase = base != null ? base : EtcdSettings.DEFAULT_BACKOFF_BASE;
    Duration effectiveMax = max != null ? max : EtcdSettings.DEFAULT_BACKOFF_MAX;
    if ((base != null || max != null) && effectiveBase.compareTo(effectiveMax) > 0) {
      problems.at(m.value(base != null ? "backoffBase" : "backoffMax"), m.path("backoffBase")
          + " (" + Durations.format(effectiveBase) + ") must be at most backoffMax ("
          + Durations.format(effectiveMax) + ")");
    }
    Integer maxValueBytes = m.has("maxValueBytes")
        ? (int) m.integer("maxValueBytes", 0, 1024, 64 << 20) : null;
    // keys per etcd transaction; at most the members' --max-txn-ops (default 128)
    Integer maxTxnOps = m.has("maxTxnOps") ? (int) m.integer("maxTxnOps", 128, 1, 10_000) : null;
    Duration cached = m.duration("cachedCounts", null, MIN_CACHE, MAX_CACHE);
    return new EtcdSettings(endpoints, user, password, namespace, timeout, connect, grace,
        retries, base, max, maxValueBytes, maxTxnOps, cached);
  }

  /**
   * Null when {@code url} is an endpoint the service can use, else a problem completing
   * "{@code path} ...": {@code http://host:port}, without credentials, path or query.
   */
  public static String endpointProblem(String url) {
    if (url.startsWith("https://")) {
      return "is https://, and TLS to etcd is not available yet (the etcd engine takes no"
          + " certificates): use http:// on a private network, was " + url;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return "must be http://host:port, e.g. http://127.0.0.1:2379, was " + url;
    }
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
      return "must be http://host:port, e.g. http://127.0.0.1:2379, was " + url;
    }
    if (uri.getRawUserInfo() != null) {
      return "must not hold credentials: give engine.etcd.user and password or passwordEnv";
    }
    if ((uri.getRawPath() != null && !uri.getRawPath().isEmpty()
        && !uri.getRawPath().equals("/")) || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      return "must be http://host:port with no path, query or fragment, was " + url;
    }
    return null;
  }
}
