package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spring.WindowpaneCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code windowpane.limiters.<name>[i].adaptive.min-panes}, {@code windowpane.counters.<name>.
 * adaptive.min-panes} and {@code windowpane.stats.<name>.adaptive.min-panes} make the window
 * adaptive (relaxed names bind), as the service's {@code adaptive} block does.
 */
class AdaptivePropertiesTest {

  @Test
  void adaptiveProperties_bindToTheWindowsMinimum() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.limiters.api[0].permits=100", "windowpane.limiters.api[0].window=1m",
            "windowpane.limiters.api[0].panes=60",
            "windowpane.limiters.api[0].adaptive.min-panes=15",
            "windowpane.counters.pay.window=10m", "windowpane.counters.pay.panes=60",
            "windowpane.counters.pay.adaptive.minPanes=30",
            "windowpane.stats.latency.window=1m", "windowpane.stats.latency.panes=12",
            "windowpane.stats.latency.adaptive.min-panes=3")
        .run()) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      assertThat(catalog.limiter("api").quota().limits().get(0).window().adaptiveMinPanes())
          .hasValue(15);
      assertThat(catalog.counter("pay").spec().adaptiveMinPanes()).hasValue(30);
      assertThat(catalog.stats("latency").spec().window().adaptiveMinPanes()).hasValue(3);
      assertThat(catalog.counter("pay").add("k", 1)).isEqualTo(1);
    }
  }
}
