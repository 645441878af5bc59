package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.InvalidWindowpanePropertiesException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.NestedExceptionUtils;

/** Bad windowpane.* properties stop the start-up, naming the property and its allowed range. */
class BadPropertiesTest {

  static String failure(WebApplicationType web, String... properties) {
    Throwable[] thrown = new Throwable[1];
    assertThatThrownBy(() -> start(web, properties).close())
        .satisfies(t -> thrown[0] = t);
    Throwable root = NestedExceptionUtils.getMostSpecificCause(thrown[0]);
    Throwable cause = thrown[0];
    while (cause != null && !(cause instanceof InvalidWindowpanePropertiesException)) {
      cause = cause.getCause();
    }
    assertThat(cause).as("root cause %s", root).isNotNull();
    return cause.getMessage();
  }

  static ConfigurableApplicationContext start(WebApplicationType web, String... properties) {
    return new SpringApplicationBuilder(PlainApp.class).web(web)
        .properties("server.port=0", "spring.main.banner-mode=off", "logging.level.root=off")
        .properties(properties).run();
  }

  @Test
  void permitsOutOfRange_namesPropertyAndRange() {
    assertThat(failure(WebApplicationType.NONE, "windowpane.limiters.api[0].permits=0",
        "windowpane.limiters.api[0].window=1s"))
        .isEqualTo("windowpane.limiters.api[0].permits must be 1 to"
            + " 1099511627775, was 0");
  }

  @Test
  void unknownTopLevelKey_namesEveryKeyTheStarterTakes_andIsoDurationsAreAccepted() {
    assertThat(failure(WebApplicationType.NONE, "windowpane.engin.type=redis",
        "windowpane.limiters.api[0].permits=2", "windowpane.limiters.api[0].window=PT10S"))
        .isEqualTo("windowpane.engin: unknown key; windowpane takes engine, limiters, counters,"
            + " stats, enabled, filter, keys, response, metrics, tracing");
  }

  @Test
  void everyProblemListed_inTheServiceWords() {
    assertThat(failure(WebApplicationType.NONE,
        "windowpane.limiters.api.limits[0].permits=10",
        "windowpane.limiters.api.limits[0].window=10",
        "windowpane.limiters.api.shadow=maybe",
        "windowpane.counters.logins.window=1m",
        "windowpane.counters.logins.panes=7",
        "windowpane.engine.type=mongo"))
        .isEqualTo("windowpane.engine.type must be one of local, redis,"
            + " etcd; was 'mongo'\n"
            + "windowpane.limiters.api.shadow must be one of true, false;"
            + " was 'maybe'\n"
            + "windowpane.limiters.api.limits[0].window must be a duration"
            + " with a unit, e.g. 10s or 10ms: add a unit (ms, s, m, h or d) to 10\n"
            + "windowpane.counters.logins: panes must divide the window"
            + " length (60000 ms) into whole milliseconds, was 7");
  }

  @Test
  void etcdMaxTxnOps_isReadInKebabCase_andOutOfRangeStopsTheStart() {
    assertThat(failure(WebApplicationType.NONE, "windowpane.engine.type=etcd",
        "windowpane.engine.etcd.endpoints=http://127.0.0.1:2379",
        "windowpane.engine.etcd.max-txn-ops=10001"))
        .isEqualTo("windowpane.engine.etcd.maxTxnOps must be 1 to 10000, was 10001");
  }

  @Test
  void unknownKey_namesTheAllowedOnes() {
    assertThat(failure(WebApplicationType.NONE, "windowpane.counters.logins.window=1m",
        "windowpane.counters.logins.pains=10"))
        .isEqualTo("windowpane.counters.logins.pains: unknown key;"
            + " windowpane.counters.logins takes window, algorithm, panes, eventTime, adaptive");
  }

  @Test
  void kebabCaseAndCamelCase_bothReadAsTheVocabulary() {
    try (ConfigurableApplicationContext app = start(WebApplicationType.NONE,
        "windowpane.engine.local.max-keys=10",
        "windowpane.limiters.api.limits[0].permits=5",
        "windowpane.limiters.api.limits[0].window=1s",
        "windowpane.stats.latency.window=1m",
        "windowpane.stats.latency.trackedRange=1e-3, 1e6")) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      assertThat(catalog.limiter("api").quota().smallestPermits()).isEqualTo(5);
      assertThat(catalog.shadow("api")).isFalse();
      assertThat(catalog.stats("latency").spec().window().windowMillis()).isEqualTo(60_000);
    }
  }

  @Test
  void filterRule_unknownLimiter_namesTheConfiguredOnes() {
    assertThat(failure(WebApplicationType.SERVLET,
        "windowpane.limiters.api[0].permits=2", "windowpane.limiters.api[0].window=1s",
        "windowpane.filter.rules[0].path=/api/**", "windowpane.filter.rules[0].limiter=apy"))
        .isEqualTo("windowpane.filter.rules[0].limiter must be one of the"
            + " configured limiters [api] (windowpane.limiters), was 'apy'");
  }

  @Test
  void filterRule_permitsAboveTheSmallestLimit_namesTheRange() {
    assertThat(failure(WebApplicationType.SERVLET,
        "windowpane.limiters.api[0].permits=2", "windowpane.limiters.api[0].window=1s",
        "windowpane.filter.rules[0].path=/api/**", "windowpane.filter.rules[0].limiter=api",
        "windowpane.filter.rules[0].permits=3"))
        .isEqualTo("windowpane.filter.rules[0].permits must be 1 to 2"
            + " (the smallest limit of api), was 3");
  }

  @Test
  void metricTagWithAReservedName_orNotSpel_stopsTheStartUp() {
    assertThat(failure(WebApplicationType.NONE, "windowpane.metrics.tags.limiter=ip"))
        .isEqualTo("windowpane.metrics.tags.limiter: the tag names limiter, outcome and"
            + " degraded are windowpane's own; choose another name");
    assertThat(failure(WebApplicationType.NONE, "windowpane.metrics.tags.plan=header('X'"))
        .isEqualTo("windowpane.metrics.tags.plan must be a SpEL expression over ip, method,"
            + " path, principal, header('name'), was 'header('X''");
  }
}
