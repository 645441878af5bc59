package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitKeyException;
import io.windowpane.spring.RateLimited;
import io.windowpane.spring.WindowpaneCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code windowpane.keys.on-null} outside a web request: skip runs the method unlimited and
 * counts nothing; reject throws {@link RateLimitKeyException} before the method runs.
 */
class NullKeyPolicyTest {

  /** A service limited per user. */
  public static class Greeter {
    int calls;

    @RateLimited(limiter = "api", key = "#user")
    public String greet(String user) {
      calls++;
      return "hi " + user;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Beans {
    @Bean
    Greeter greeter() {
      return new Greeter();
    }
  }

  static ConfigurableApplicationContext start(String policy) {
    return new SpringApplicationBuilder(PlainApp.class, Beans.class)
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.keys.on-null=" + policy,
            "windowpane.limiters.api[0].permits=1", "windowpane.limiters.api[0].window=1h")
        .run();
  }

  @Test
  void skip_nullKey_runsUnlimited_andCountsNothing() {
    try (ConfigurableApplicationContext app = start("skip")) {
      Greeter greeter = app.getBean(Greeter.class);
      for (int i = 0; i < 3; i++) {
        assertThat(greeter.greet(null)).isEqualTo("hi null");
      }
      assertThat(app.getBean(WindowpaneCatalog.class).limiter("api").holdsState("-")).isFalse();
      assertThat(greeter.greet("ann")).isEqualTo("hi ann");
      assertThatThrownBy(() -> greeter.greet("ann"))
          .isInstanceOf(RateLimitExceededException.class);
    }
  }

  @Test
  void reject_nullKey_throwsBeforeTheMethodRuns() {
    try (ConfigurableApplicationContext app = start("reject")) {
      Greeter greeter = app.getBean(Greeter.class);
      assertThatThrownBy(() -> greeter.greet(null))
          .isInstanceOf(RateLimitKeyException.class)
          .hasMessage("the rate-limit key of limiter api is missing: '#user' gave no value");
      assertThat(greeter.calls).isZero();
    }
  }
}
