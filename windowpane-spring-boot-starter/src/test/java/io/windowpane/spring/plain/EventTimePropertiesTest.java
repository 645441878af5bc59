package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.EventTime;
import io.windowpane.spring.WindowpaneCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code windowpane.counters.<name>.event-time.*} and {@code windowpane.stats.<name>.event-time.*}
 * set the window's {@link EventTime} rules (relaxed names bind), as the service's
 * {@code eventTime} block does.
 */
class EventTimePropertiesTest {

  @Test
  void eventTimeProperties_bindToTheWindowsRules() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.counters.pay.window=10m", "windowpane.counters.pay.panes=60",
            "windowpane.counters.pay.event-time.max-ahead=2s",
            "windowpane.counters.pay.event-time.late=drop",
            "windowpane.stats.amounts.window=1m",
            "windowpane.stats.amounts.eventTime.maxAhead=0ms")
        .run()) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      EventTime pay = catalog.counter("pay").spec().eventTime();
      assertThat(pay.maxAheadMillis()).isEqualTo(2_000);
      assertThat(pay.dropsLate()).isTrue();
      EventTime amounts = catalog.stats("amounts").spec().eventTime();
      assertThat(amounts.maxAheadMillis()).isZero();
      assertThat(amounts.dropsLate()).isFalse();
      long now = System.currentTimeMillis();
      assertThat(catalog.counter("pay").add("k", 1, now - 60_000)).isEqualTo(1);
    }
  }
}
