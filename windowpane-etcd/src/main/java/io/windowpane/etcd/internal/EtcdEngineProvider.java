package io.windowpane.etcd.internal;

import io.windowpane.etcd.EtcdEngine;
import io.windowpane.spi.BuilderEngineProvider;
import io.windowpane.spi.EngineSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The etcd engine for windowpane-config (the service's {@code engine.etcd} block, the starter's
 * {@code windowpane.engine.etcd.*}), registered in
 * {@code META-INF/services/io.windowpane.spi.EngineProvider}. Takes the block's options under
 * their names: {@code endpoints} (URLs), {@code user} and {@code password} (together),
 * {@code namespace}, {@code timeout}, {@code connectTimeout}, {@code expiryGrace},
 * {@code backoffBase} and {@code backoffMax} (together), {@code cachedCounts} (durations),
 * {@code conflictRetries}, {@code maxValueBytes} and {@code maxTxnOps} (integers); an option
 * left out keeps the builder's default. An option it does not know is refused, so the
 * configuration and the engine cannot drift apart unnoticed.
 */
public final class EtcdEngineProvider extends BuilderEngineProvider<EtcdEngine.Builder> {

  private static final Set<String> OPTIONS = Set.of("endpoints", "user", "password",
      "namespace", "timeout", "connectTimeout", "expiryGrace", "conflictRetries", "backoffBase",
      "backoffMax", "maxValueBytes", "maxTxnOps", "cachedCounts");

  public EtcdEngineProvider() {
    super("etcd", OPTIONS, EtcdEngine.Builder::build, EtcdEngine.Builder::buildDeferred);
  }

  @Override
  protected EtcdEngine.Builder configure(EngineSettings settings) {
    List<String> endpoints = settings.texts("endpoints");
    EtcdEngine.Builder b = EtcdEngine.builder().endpoints(endpoints.toArray(new String[0]));
    Optional<String> user = settings.text("user");
    Optional<String> password = settings.text("password");
    if (user.isPresent() || password.isPresent()) {
      b.credentials(user.orElse(null), password.orElse(null));
    }
    settings.text("namespace").ifPresent(b::namespace);
    settings.duration("timeout").ifPresent(b::timeout);
    settings.duration("connectTimeout").ifPresent(b::connectTimeout);
    settings.duration("expiryGrace").ifPresent(b::expiryGrace);
    settings.integer("conflictRetries").ifPresent(b::conflictRetries);
    Optional<Duration> base = settings.duration("backoffBase");
    Optional<Duration> max = settings.duration("backoffMax");
    if (base.isPresent() != max.isPresent()) {
      throw new IllegalArgumentException("etcd options backoffBase and backoffMax go together,"
          + " was only " + (base.isPresent() ? "backoffBase" : "backoffMax"));
    }
    if (base.isPresent()) {
      b.backoff(base.get(), max.get());
    }
    settings.integer("maxValueBytes").ifPresent(b::maxValueBytes);
    settings.integer("maxTxnOps").ifPresent(b::maxTxnOps);
    settings.duration("cachedCounts").ifPresent(b::cachedCounts);
    return b;
  }
}
