package io.windowpane.spring.gateway;

import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.RateLimitGuard;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/*
 * Design note: Spring Cloud Gateway's RequestRateLimiter filter asks a RateLimiter whether the
 * request of a key (from its KeyResolver) may go on, and copies the answer's headers onto the
 * response; its own RedisRateLimiter is a token bucket refilled at a fixed rate. This one decides
 * on a windowpane limiter of the starter (windowpane.limiters.<name>), with the starter's guard,
 * so the gateway gets the same sliding windows, engines, shadow mode, on-failure policy, headers
 * (RateLimit, RateLimit-Policy, Retry-After, named by windowpane.response.headers) and
 * windowpane.decisions meters as @RateLimited and the path rules. The decision is the engine's
 * async call: the event loop never blocks. Route arguments bind under windowpane-rate-limiter.
 */

/**
 * A Spring Cloud Gateway {@code RateLimiter} on windowpane's sliding windows: per route,
 * {@code windowpane-rate-limiter.limiter} (a configured limiter, required) and
 * {@code windowpane-rate-limiter.permits} (1 by default) for each request's key.
 */
public final class WindowpaneGatewayRateLimiter
    extends AbstractRateLimiter<WindowpaneGatewayRateLimiter.Config> {

  /** The prefix of the route arguments. */
  public static final String CONFIGURATION_PROPERTY_NAME = "windowpane-rate-limiter";

  private final WindowpaneCatalog catalog;
  private final RateLimitGuard guard;
  private final Map<String, Target> targets = new ConcurrentHashMap<>();

  public WindowpaneGatewayRateLimiter(WindowpaneCatalog catalog, RateLimitGuard guard,
      ConfigurationService configurationService) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
    this.catalog = catalog;
    this.guard = guard;
  }

  @Override
  public Mono<Response> isAllowed(String routeId, String id) {
    Target target;
    try {
      target = target(routeId);
    } catch (IllegalArgumentException e) {
      return Mono.error(e);
    }
    return Mono.fromCompletionStage(() -> guard.acquireAsync(target, id, null))
        .map(outcome -> new Response(outcome.letThrough(), outcome.headers()));
  }

  /**
   * The limiter and permits of {@code routeId} (or of the default filters).
   *
   * @throws IllegalArgumentException the route names no limiter, or one that is not configured,
   *     or permits out of range
   */
  Target target(String routeId) {
    Config config = getConfig().get(routeId);
    if (config == null) {
      config = getConfig().get(RouteDefinitionRouteLocator.DEFAULT_FILTERS);
    }
    if (config == null || config.getLimiter() == null) {
      throw new IllegalArgumentException("route " + routeId + ": "
          + CONFIGURATION_PROPERTY_NAME + ".limiter is required, one of "
          + catalog.limiters().keySet());
    }
    Config c = config;
    return targets.computeIfAbsent(routeId + "\u0000" + c.getLimiter() + "\u0000"
        + c.getPermits(), k -> catalog.target(List.of(c.getLimiter()), c.getPermits()));
  }

  /** A route's arguments. */
  public static class Config {

    /** The windowpane limiter ({@code windowpane.limiters.<name>}) to take permits from. */
    private String limiter;

    /** Permits each request takes, 1 to the smallest limit of the limiter. */
    private long permits = 1;

    public String getLimiter() {
      return limiter;
    }

    public Config setLimiter(String limiter) {
      this.limiter = limiter;
      return this;
    }

    public long getPermits() {
      return permits;
    }

    public Config setPermits(long permits) {
      this.permits = permits;
      return this;
    }
  }
}
