package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.spring.WindowpaneCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The application's own beans win over the starter's. */
class UserBeansTest {

  static final ManualClock CLOCK = ManualClock.at(1_700_000_000_000L);

  @Configuration(proxyBeanMethods = false)
  static class OwnWindowpane {
    @Bean
    Windowpane myWindowpane() {
      return Windowpane.localBuilder().clock(CLOCK).build();
    }
  }

  @Test
  void engineChain_fromProperties_buildsTheFailoverChain() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.engine.chain=local", "windowpane.engine.failover.call-timeout=50ms",
            "windowpane.limiters.api[0].permits=1", "windowpane.limiters.api[0].window=1h")
        .run()) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      assertThat(catalog.windowpane().engineName()).isEqualTo("failover");
      assertThat(catalog.limiter("api").tryAcquire("k").engine()).hasValue("local");
      assertThat(catalog.limiter("api").tryAcquire("k").allowed()).isFalse();
    }
  }

  @Test
  void ownWindowpaneBean_isUsed_andTheConfiguredLimitersAreBuiltOnIt() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class,
        OwnWindowpane.class).web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.engine.type=redis",   // ignored: the application's engine wins
            "windowpane.engine.redis.uri=redis://127.0.0.1:1",
            "windowpane.limiters.api[0].permits=1", "windowpane.limiters.api[0].window=10s")
        .run()) {
      Windowpane own = app.getBean("myWindowpane", Windowpane.class);
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      assertThat(app.getBeansOfType(Windowpane.class)).hasSize(1);
      assertThat(catalog.windowpane()).isSameAs(own);
      assertThat(catalog.limiter("api").tryAcquire("k").allowed()).isTrue();
      assertThat(catalog.limiter("api").tryAcquire("k").allowed()).isFalse();
      CLOCK.advance(10_000);
      assertThat(catalog.limiter("api").tryAcquire("k").allowed()).isTrue();
    }
  }
}
