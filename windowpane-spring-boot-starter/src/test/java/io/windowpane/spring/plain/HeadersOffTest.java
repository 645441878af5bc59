package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.RateLimitGuard;
import io.windowpane.spring.internal.RateLimitGuard.Target;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code windowpane.response.headers.enabled=false}: no RateLimit or RateLimit-Policy on any
 * decision; a refusal keeps Retry-After, under its configured name.
 */
class HeadersOffTest {

  @Test
  void headersOff_onlyRetryAfterOnARefusal() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.response.headers.enabled=false",
            "windowpane.response.headers.retry-after=X-Retry-In",
            "windowpane.limiters.api[0].permits=1", "windowpane.limiters.api[0].window=1h",
            "windowpane.limiters.api[0].algorithm=log")
        .run()) {
      RateLimitGuard guard = app.getBean(RateLimitGuard.class);
      Target target = app.getBean(WindowpaneCatalog.class).target(List.of("api"), 1);
      assertThat(guard.acquire(target, "k").headers()).isEmpty();
      assertThat(guard.acquire(target, "k").headers()).isEqualTo(Map.of("X-Retry-In", "3600"));
    }
  }
}
