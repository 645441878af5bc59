package io.windowpane.config;

import io.windowpane.Failover;
import io.windowpane.OnFailure;
import io.windowpane.Windowpane;
import io.windowpane.config.EngineConfig.Kind;
import io.windowpane.spi.Engine;
import io.windowpane.spi.EngineProvider;
import io.windowpane.spi.EngineSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Builds the engines an {@link EngineConfig} names. The in-process engine is built here; Redis
 * and etcd through the {@link EngineProvider} their modules register (windowpane-redis,
 * windowpane-etcd), found with {@link ServiceLoader} at this point and not when the file is
 * read, so a configuration naming them can be checked without them. A kind without a provider
 * fails here, saying which module to add.
 *
 * <p>A single engine connects at once and fails fast ({@link EngineProvider#build}: Redis
 * unreachable, the service does not start). A chain's remote members are built deferred
 * ({@link EngineProvider#buildDeferred}): one that cannot connect starts DOWN and joins once its
 * backend answers, so the chain starts on its fallback during an outage. If building a member
 * fails otherwise (bad options, a missing module), those already built are closed before the
 * failure goes up, so a service that cannot start leaves no connection or thread behind.
 */
final class EngineOpener {

  private final Function<String, Optional<EngineProvider>> providers;

  /** An opener finding providers with {@code providers} (by kind). */
  EngineOpener(Function<String, Optional<EngineProvider>> providers) {
    this.providers = providers;
  }

  /** The opener of the class path's providers. */
  static EngineOpener serviceLoader() {
    return new EngineOpener(EngineOpener::load);
  }

  Engine open(EngineConfig config) {
    if (!config.chain()) {
      return member(config, config.kind(), false);
    }
    List<Engine> members = new ArrayList<>();
    try {
      for (Kind kind : config.engines()) {
        members.add(member(config, kind, true));
      }
      return config.failover().applyTo(Failover.chain(members))
          .onFailure(OnFailure.valueOf(config.onFailure().name()))
          .build();
    } catch (RuntimeException e) {
      for (Engine built : members) {
        try {
          built.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private Engine member(EngineConfig config, Kind kind, boolean deferred) {
    if (kind == Kind.LOCAL) {
      Windowpane.LocalBuilder local = Windowpane.localBuilder();
      config.localMaxKeys().ifPresent(local::maxKeys);
      return local.buildEngine();
    }
    EngineSettings settings = config.engineSettings(kind);
    EngineProvider provider = providers.apply(kind.label())
        .orElseThrow(() -> missing(config, kind));
    return deferred ? provider.buildDeferred(settings) : provider.build(settings);
  }

  /** The failure of a configuration naming {@code kind} without its module. */
  static IllegalStateException missing(EngineConfig config, Kind kind) {
    String module = "windowpane-" + kind.label();
    return new IllegalStateException("engine " + kind.label() + (config.chain()
        ? " (a member of engine.chain)" : "") + " needs the module " + module + " on the"
        + " class path: add the dependency io.windowpane:" + module + " (the version of"
        + " windowpane-config), or configure another engine");
  }

  /**
   * The provider of {@code kind} on the class path: looked up through the thread's context
   * class loader (an application server's or Spring Boot's), then through the one that loaded
   * this module.
   */
  private static Optional<EngineProvider> load(String kind) {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    Optional<EngineProvider> found = context == null ? Optional.empty() : find(kind, context);
    return found.isPresent() ? found : find(kind, EngineOpener.class.getClassLoader());
  }

  private static Optional<EngineProvider> find(String kind, ClassLoader loader) {
    for (EngineProvider p : ServiceLoader.load(EngineProvider.class, loader)) {
      if (p.kind().equals(kind)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
