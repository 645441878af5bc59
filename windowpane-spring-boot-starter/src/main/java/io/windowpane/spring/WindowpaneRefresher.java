package io.windowpane.spring;

import io.windowpane.config.WindowpaneConfig;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies changed {@code windowpane.*} properties to the running limiters, without a restart:
 * reads the properties again from the application's {@code Environment} and hands them to
 * {@link WindowpaneCatalog#apply}. With Spring Cloud Context on the classpath the starter calls
 * it on every {@code EnvironmentChangeEvent} that names a {@code windowpane.*} key (what
 * {@code /actuator/refresh}, Spring Cloud Config and Spring Cloud Bus publish); without it, an
 * application that changes its property sources calls {@link #refresh()} itself.
 *
 * <p>A limiter whose permits changed decides against the new permits from its next request,
 * and every key keeps its counts. Anything else (a limiter added or removed, another window, a
 * counter, shadow mode, the engine) is logged at WARN and left as it is until a restart; values
 * that do not validate are logged at WARN with the property at fault, and every limiter keeps
 * the limits in force. Thread-safe: refreshes run one at a time.
 */
public final class WindowpaneRefresher {

  private static final Logger LOG = LoggerFactory.getLogger("io.windowpane.refresh");

  private final WindowpaneCatalog catalog;
  private final Supplier<WindowpaneConfig> properties;

  /** Applies what {@code properties} reads (the windowpane.* properties, now) to {@code catalog}. */
  public WindowpaneRefresher(WindowpaneCatalog catalog, Supplier<WindowpaneConfig> properties) {
    this.catalog = catalog;
    this.properties = properties;
  }

  /**
   * Reads the {@code windowpane.*} properties again and applies their limiters' permits.
   *
   * @return what changed and what was not applied; empty lists when the properties do not
   *     validate (logged, nothing changed)
   */
  public synchronized WindowpaneCatalog.Applied refresh() {
    WindowpaneConfig config;
    try {
      config = properties.get();
    } catch (RuntimeException e) {
      LOG.warn("windowpane properties changed but do not validate; every limiter keeps the"
          + " limits in force:\n{}", e.getMessage());
      return new WindowpaneCatalog.Applied(java.util.List.of(),
          java.util.List.of(String.valueOf(e.getMessage())));
    }
    WindowpaneCatalog.Applied applied = catalog.apply(config);
    for (String name : applied.reconfigured()) {
      LOG.info("windowpane limiter {} now decides against {}; every key keeps its counts", name,
          permits(catalog.limiter(name).quota()));
    }
    for (String problem : applied.notApplied()) {
      LOG.warn("windowpane properties changed, not applied until a restart: {}", problem);
    }
    return applied;
  }

  /** The permits of each limit, e.g. {@code [api: 200, 10000/1h: 10000]}. */
  static String permits(io.windowpane.Quota quota) {
    StringBuilder b = new StringBuilder("[");
    for (io.windowpane.Limit limit : quota.limits()) {
      b.append(b.length() == 1 ? "" : ", ").append(limit.name()).append(": ")
          .append(limit.permits()).append(" per ").append(limit.window());
    }
    return b.append(']').toString();
  }
}
