package io.windowpane.spring.autoconfigure;

import io.windowpane.MillisClock;
import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import io.windowpane.config.EngineConfig;
import io.windowpane.config.EngineConfig.Kind;
import io.windowpane.config.WindowpaneConfig;
import io.windowpane.spring.RateLimitDenialBody;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.WindowpaneProperties;
import io.windowpane.spring.WindowpaneRefresher;
import io.windowpane.spi.EngineObserver;
import io.windowpane.spring.internal.DecisionListener;
import io.windowpane.spring.internal.DecisionTracing;
import io.windowpane.spring.internal.ObservationDecisionTracing;
import io.windowpane.spring.internal.FailoverMeters;
import io.windowpane.spring.internal.InvalidWindowpanePropertiesException;
import io.windowpane.spring.internal.LeasingMeterBinder;
import io.windowpane.spring.internal.MetricTags;
import io.windowpane.spring.internal.MicrometerDecisionListener;
import io.windowpane.spring.internal.ProblemJson;
import io.windowpane.spring.internal.PropertyTree;
import io.windowpane.spring.internal.RateLimitGuard;
import io.windowpane.spring.internal.RateLimitedInterceptor;
import io.windowpane.spring.internal.RateLimitedPostProcessor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/*
 * Design note: the library's vocabulary is read by windowpane-config's readers from a tree of the
 * windowpane.* properties (PropertyTree), so the starter and the service's YAML file accept the
 * same values and report the same problems, with Spring's property paths. The starter's own
 * properties (enabled, filter) are a plain @ConfigurationProperties class. Every bean backs off
 * when the application defines its own; a Windowpane bean of the application is used as is, with
 * the configured limiters, counters and statistics windows built on it.
 */

/** Auto-configuration of windowpane from the {@code windowpane.*} properties. */
@AutoConfiguration(afterName = {
    "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
    "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@ConditionalOnProperty(prefix = "windowpane", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(WindowpaneProperties.class)
public class WindowpaneAutoConfiguration {

  /** Where problems with the properties say they come from. */
  static final String SOURCE = "windowpane properties";

  /** The library's vocabulary, read and validated from the windowpane.* properties. */
  @Bean
  @ConditionalOnMissingBean
  public WindowpaneConfig windowpaneConfig(Environment environment,
      ObjectProvider<SpringRedisSettings> springRedis) {
    return read(environment, springRedis.getIfAvailable());
  }

  /** The windowpane.* properties of {@code environment} now, read and validated. */
  static WindowpaneConfig read(Environment environment, SpringRedisSettings redis) {
    // the starter's own keys, read elsewhere: named in the problem of an unknown key too
    List<String> starterKeys = List.of("enabled", "filter", "keys", "response", "metrics",
        "tracing");
    Map<String, Object> tree = PropertyTree.read(environment, "windowpane",
        Set.copyOf(starterKeys));
    if (redis != null) {
      redis.fillIn(tree);
    }
    try {
      return WindowpaneConfig.read(WindowpaneConfig.tree(tree), SOURCE, "windowpane",
          starterKeys, System::getenv);
    } catch (ConfigException e) {
      // one problem a line, without the source prefix: each already names its property
      StringBuilder problems = new StringBuilder();
      e.problems().forEach(p -> problems.append(problems.length() == 0 ? "" : "\n")
          .append(p.text()));
      throw new InvalidWindowpanePropertiesException(problems.toString(), e);
    }
  }

  /** The clock of the in-process engine and of the headers' reset times. */
  @Bean
  @ConditionalOnMissingBean
  public MillisClock windowpaneClock() {
    return MillisClock.system();
  }

  /**
   * The engine of {@code windowpane.engine}: in-process unless configured otherwise; its
   * backend calls and decisions reported to the {@link EngineObserver} bean if there is one
   * (tracing, {@link Tracing}).
   */
  @Bean
  @ConditionalOnMissingBean
  public Windowpane windowpane(WindowpaneConfig config, MillisClock clock,
      ObjectProvider<EngineObserver> observer) {
    EngineObserver seen = observer.getIfAvailable(() -> EngineObserver.NONE);
    EngineConfig engine = config.engine();
    if (!engine.chain() && engine.kind() == Kind.LOCAL) {
      Windowpane.LocalBuilder local = Windowpane.localBuilder().clock(clock);
      engine.localMaxKeys().ifPresent(local::maxKeys);
      return Windowpane.using(local.buildEngine(), seen);
    }
    return Windowpane.using(engine.openEngine(), seen);
  }

  /**
   * Tracing with Micrometer Tracing present and {@code windowpane.tracing.enabled} (the
   * default): each decision is a {@code windowpane.decision} observation in the application's
   * current one (the HTTP request's span), with a {@code windowpane.call} child per backend
   * call (docs/observability.md).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.micrometer.observation.ObservationRegistry",
      "io.micrometer.tracing.Tracer"})
  @ConditionalOnProperty(prefix = "windowpane.tracing", name = "enabled", matchIfMissing = true)
  static class Tracing {
    @Bean
    @ConditionalOnMissingBean
    EngineObserver windowpaneEngineObserver(
        ObjectProvider<io.micrometer.observation.ObservationRegistry> registry) {
      io.micrometer.observation.ObservationRegistry r = registry.getIfAvailable();
      return r == null || r.isNoop() ? EngineObserver.NONE
          : new io.windowpane.micrometer.ObservationEngineObserver(r);
    }

    @Bean
    @ConditionalOnMissingBean
    DecisionTracing windowpaneDecisionTracing(
        ObjectProvider<io.micrometer.observation.ObservationRegistry> registry,
        Windowpane windowpane) {
      io.micrometer.observation.ObservationRegistry r = registry.getIfAvailable();
      return r == null || r.isNoop() ? DecisionTracing.NONE
          : new ObservationDecisionTracing(r, windowpane.engineName());
    }
  }

  @Bean
  @ConditionalOnMissingBean
  public WindowpaneCatalog windowpaneCatalog(Windowpane windowpane, WindowpaneConfig config) {
    return new WindowpaneCatalog(windowpane, config);
  }

  /**
   * Applies changed windowpane.* properties to the running limiters ({@link
   * WindowpaneRefresher}): on Spring Cloud's environment changes, or when the application asks.
   */
  @Bean
  @ConditionalOnMissingBean
  public WindowpaneRefresher windowpaneRefresher(WindowpaneCatalog catalog,
      Environment environment, ObjectProvider<SpringRedisSettings> springRedis) {
    return new WindowpaneRefresher(catalog,
        () -> read(environment, springRedis.getIfAvailable()));
  }

  /**
   * Spring Cloud Context's {@code EnvironmentChangeEvent} (published by {@code /actuator/refresh},
   * Spring Cloud Config and Bus) refreshes the limiters when it names a windowpane.* key.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
  static class SpringCloudRefresh {
    @Bean
    EnvironmentChangeRefresh windowpaneEnvironmentChangeListener(
        ObjectProvider<WindowpaneRefresher> refresher) {
      return new EnvironmentChangeRefresh(refresher);
    }
  }

  /** Refreshes the limiters when a change names a windowpane.* key (or WINDOWPANE_*). */
  static final class EnvironmentChangeRefresh implements org.springframework.context
      .ApplicationListener<org.springframework.cloud.context.environment.EnvironmentChangeEvent> {
    private final ObjectProvider<WindowpaneRefresher> refresher;

    EnvironmentChangeRefresh(ObjectProvider<WindowpaneRefresher> refresher) {
      this.refresher = refresher;
    }

    @Override
    public void onApplicationEvent(
        org.springframework.cloud.context.environment.EnvironmentChangeEvent event) {
      boolean ours = event.getKeys().stream()
          .anyMatch(k -> k.regionMatches(true, 0, "windowpane", 0, 10));
      WindowpaneRefresher r = refresher.getIfAvailable();
      if (ours && r != null) {
        r.refresh();
      }
    }
  }

  @Bean
  @ConditionalOnMissingBean
  public RateLimitGuard windowpaneRateLimitGuard(WindowpaneConfig config, MillisClock clock,
      ObjectProvider<DecisionListener> listener, WindowpaneProperties properties,
      ObjectProvider<DecisionTracing> tracing) {
    WindowpaneProperties.Headers h = properties.getResponse().getHeaders();
    return new RateLimitGuard(clock, config.engine().onFailure(),
        listener.getIfAvailable(() -> DecisionListener.NONE),
        new RateLimitGuard.HeaderOptions(h.isEnabled(), h.isShadow(), name(h.getPolicy()),
            name(h.getLimit()), name(h.getRetryAfter())),
        properties.getKeys().getOnNull(), metricTags(properties),
        tracing.getIfAvailable(() -> DecisionTracing.NONE));
  }

  private static MetricTags metricTags(WindowpaneProperties properties) {
    try {
      return MetricTags.of(properties.getMetrics().getTags());
    } catch (IllegalArgumentException e) {
      throw new InvalidWindowpanePropertiesException(e.getMessage(), e);
    }
  }

  /** A header name as configured; null or blank: the header is left out. */
  private static String name(String header) {
    return header == null ? "" : header.trim();
  }

  /** The 429's body: problem+json unless the application defines its own. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimitDenialBody windowpaneDenialBody() {
    return ProblemJson.DEFAULT;
  }

  /** Applies {@code @RateLimited}; static, as a post-processor must be. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  public static RateLimitedPostProcessor windowpaneRateLimitedPostProcessor(
      ObjectProvider<WindowpaneCatalog> catalog, ObjectProvider<RateLimitGuard> guard) {
    RateLimitedPostProcessor processor = new RateLimitedPostProcessor(
        new RateLimitedInterceptor(catalog::getObject, guard::getObject));
    processor.setProxyTargetClass(true);
    return processor;
  }

  /**
   * Micrometer meters when Micrometer is present (the registry is looked up lazily; Spring Boot
   * binds the leasing meters to each registry).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class Metrics {
    @Bean
    @ConditionalOnMissingBean
    DecisionListener windowpaneMeters(
        ObjectProvider<io.micrometer.core.instrument.MeterRegistry> registry) {
      return new MicrometerDecisionListener(registry::getIfAvailable);
    }

    /** The leasing meters of the limiters with leasing on ({@link LeasingMeterBinder}). */
    @Bean
    @ConditionalOnMissingBean(name = "windowpaneLeasingMeters")
    LeasingMeterBinder windowpaneLeasingMeters(WindowpaneCatalog catalog) {
      return new LeasingMeterBinder(catalog);
    }

    /**
     * The failover chain's meters ({@link FailoverMeters}, the service's names) when the engine
     * is a chain; binds nothing otherwise.
     */
    @Bean
    @ConditionalOnMissingBean(name = "windowpaneFailoverMeters")
    io.micrometer.core.instrument.binder.MeterBinder windowpaneFailoverMeters(
        Windowpane windowpane) {
      return registry -> windowpane.failover()
          .ifPresent(chain -> new FailoverMeters(chain).bindTo(registry));
    }

    /**
     * The Redis memory guard's meters ({@link io.windowpane.micrometer.MemoryMetrics}, the
     * service's names) when the engine has a guard; binds nothing otherwise.
     */
    @Bean
    @ConditionalOnMissingBean(name = "windowpaneMemoryMeters")
    io.micrometer.core.instrument.binder.MeterBinder windowpaneMemoryMeters(
        Windowpane windowpane) {
      return registry -> io.windowpane.micrometer.MemoryMetrics.bind(registry, windowpane);
    }
  }

  /** Spring Data Redis' Lettuce connection settings, reused for {@code windowpane.engine.redis}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name =
      "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory")
  static class SpringDataRedis {
    @Bean
    SpringRedisSettings windowpaneSpringRedisSettings(
        ObjectProvider<org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory>
            factory) {
      return new SpringRedisSettings(factory::getIfAvailable);
    }
  }
}
