package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.windowpane.LeaseStats;
import io.windowpane.Leasing;
import io.windowpane.RateLimiter;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.WindowpaneEndpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code windowpane.limiters.<name>.leasing.*} turns leasing on for that limiter (relaxed names
 * bind), its meters appear in the application's registry and read the limiter's
 * {@code leaseStats()}, the Actuator endpoint shows the options; a bad value stops the start-up
 * naming the property and its range.
 */
class LeasingPropertiesTest {

  @Test
  void leasingProperties_bind_andTheMetersReadLeaseStats() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.limiters.hot.limits[0].permits=1000",
            "windowpane.limiters.hot.limits[0].window=1h",
            "windowpane.limiters.hot.leasing.enabled=true",
            "windowpane.limiters.hot.leasing.max-share=0.5",
            "windowpane.limiters.hot.leasing.maxSlice=50",
            "windowpane.limiters.hot.leasing.log-lifetime=10ms",
            "windowpane.limiters.plain[0].permits=10", "windowpane.limiters.plain[0].window=1s")
        .run()) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      RateLimiter hot = catalog.limiter("hot");
      Leasing leasing = hot.quota().leasing().orElseThrow();
      assertThat(leasing.maxShare()).isEqualTo(0.5);
      assertThat(leasing.maxSlice()).isEqualTo(50);
      assertThat(leasing.logLifetimeMillis()).isEqualTo(10);
      assertThat(catalog.limiter("plain").leaseStats()).isEmpty();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> described = (List<Map<String, Object>>)
          app.getBean(WindowpaneEndpoint.class).describe().get("limiters");
      assertThat(described.get(0)).containsEntry("leasing", Map.of("maxShare", 0.5,
          "maxSlice", 50L, "logLifetimeMillis", 10L));
      assertThat(described.get(1)).doesNotContainKey("leasing");

      for (int i = 0; i < 20; i++) {
        assertThat(hot.tryAcquire("tenant:7").allowed()).isTrue();
      }
      LeaseStats s = hot.leaseStats().orElseThrow();
      assertThat(s.leases()).isPositive();
      assertThat(s.localDecisions() + s.engineDecisions()).isEqualTo(20);

      MeterRegistry registry = app.getBean(MeterRegistry.class);
      assertThat(registry.get("windowpane.leasing.leases").tag("limiter", "hot")
          .functionCounter().count()).isEqualTo(s.leases());
      assertThat(registry.get("windowpane.leasing.permits").tag("limiter", "hot")
          .tag("kind", "leased").functionCounter().count()).isEqualTo(s.leasedPermits());
      assertThat(registry.get("windowpane.leasing.decisions").tag("limiter", "hot")
          .tag("where", "local").functionCounter().count()).isEqualTo(s.localDecisions());
      assertThat(registry.get("windowpane.leasing.decisions").tag("limiter", "hot")
          .tag("where", "engine").functionCounter().count()).isEqualTo(s.engineDecisions());
      assertThat(registry.get("windowpane.leasing.returns.failed").tag("limiter", "hot")
          .functionCounter().count()).isEqualTo(s.failedReturns());
      assertThat(registry.get("windowpane.leasing.local.hit.ratio").tag("limiter", "hot")
          .gauge().value()).isEqualTo(s.localHitRatio());
      assertThat(registry.get("windowpane.leasing.active").tag("limiter", "hot")
          .gauge().value()).isEqualTo(1.0);
      assertThat(registry.find("windowpane.leasing.leases").tag("limiter", "plain")
          .functionCounter()).isNull();
    }
  }

  @Test
  void badLeasingValue_namesThePropertyAndItsRange() {
    assertThat(BadPropertiesTest.failure(WebApplicationType.NONE,
        "windowpane.limiters.hot.limits[0].permits=1000",
        "windowpane.limiters.hot.limits[0].window=1h",
        "windowpane.limiters.hot.leasing.max-share=2"))
        .isEqualTo("windowpane.limiters.hot.leasing.maxShare must be more than 0 and at most 1"
            + " (0.1 is a tenth of the room left), was 2.0");
  }
}
