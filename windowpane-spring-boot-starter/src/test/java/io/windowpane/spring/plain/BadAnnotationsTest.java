package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimited;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.NestedExceptionUtils;

/** A fallback method or a condition that cannot work stops the start-up, naming the method. */
class BadAnnotationsTest {

  public static class NoSuchFallback {
    @RateLimited(limiter = "api", fallbackMethod = "missing")
    public String call(String id) {
      return id;
    }
  }

  public static class WrongReturnType {
    @RateLimited(limiter = "api", fallbackMethod = "busy")
    public String call(String id) {
      return id;
    }

    public Integer busy(String id, RateLimitExceededException denial) {
      return 0;
    }
  }

  public static class BadCondition {
    @RateLimited(limiter = "api", skipCondition = "#id ==")
    public String call(String id) {
      return id;
    }
  }

  static void startsWith(Class<?> bean, String message) {
    assertThatThrownBy(() -> new SpringApplicationBuilder(PlainApp.class)
        .initializers(context -> ((org.springframework.context.support.GenericApplicationContext)
            context).registerBean(bean))
        .web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.limiters.api[0].permits=1", "windowpane.limiters.api[0].window=1h")
        .run().close())
        .satisfies(t -> {
          Throwable cause = t;
          while (cause != null && (cause.getMessage() == null
              || !cause.getMessage().startsWith("@RateLimited"))) {
            cause = cause.getCause();
          }
          assertThat(cause).as("a cause saying @RateLimited..., in %s",
              NestedExceptionUtils.getMostSpecificCause(t)).isNotNull();
          assertThat(cause.getMessage()).startsWith(message);
        });
  }

  @Test
  void fallbackMethodMissing_failsStartUp() {
    startsWith(NoSuchFallback.class, "@RateLimited on NoSuchFallback.call: fallbackMethod"
        + " missing must be a method of NoSuchFallback with the parameters of call followed by"
        + " a RateLimitExceededException");
  }

  @Test
  void fallbackReturningWhatCallersDoNotAccept_failsStartUp() {
    startsWith(WrongReturnType.class, "@RateLimited on WrongReturnType.call: fallbackMethod"
        + " busy returns Integer, which call's callers do not accept (String)");
  }

  @Test
  void conditionNotSpel_failsStartUp() {
    startsWith(BadCondition.class, "@RateLimited on BadCondition.call: skipCondition '#id =='"
        + " is not a valid SpEL expression");
  }
}
