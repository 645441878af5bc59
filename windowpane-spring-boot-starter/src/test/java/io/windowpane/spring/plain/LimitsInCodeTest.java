package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.WindowSpec;
import io.windowpane.spring.RateLimited;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.WindowpaneRefresher;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * Limits changed in code, for applications without Spring Cloud: {@link
 * WindowpaneCatalog#reconfigure} and {@link WindowpaneRefresher#refresh()} after the
 * application changed its own property sources.
 */
class LimitsInCodeTest {

  private static final WindowSpec TEN_SECONDS = WindowSpec.panes(Duration.ofSeconds(10), 10);

  /** Takes 3 permits of limiter jobs at once. */
  public static class Jobs {
    @RateLimited(limiter = "jobs", key = "'all'", permits = 3)
    public String run() {
      return "ran";
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class WithJobs {
    @Bean
    Jobs jobs() {
      return new Jobs();
    }
  }

  private static Quota jobs(long permits) {
    return Quota.of(Limit.of(permits, TEN_SECONDS).named("jobs"));
  }

  @Test
  void reconfigureAndRefresh_changeThePermits_keepTheCounts_andRefuseWhatTakesARestart() {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PlainApp.class,
        WithJobs.class).web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "logging.level.root=off",
            "windowpane.limiters.jobs[0].name=jobs", "windowpane.limiters.jobs[0].permits=6",
            "windowpane.limiters.jobs[0].window=10s",
            "windowpane.limiters.other[0].permits=1", "windowpane.limiters.other[0].window=10s")
        .run()) {
      WindowpaneCatalog catalog = app.getBean(WindowpaneCatalog.class);
      Jobs jobs = app.getBean(Jobs.class);
      assertThat(jobs.run()).isEqualTo("ran");
      assertThatThrownBy(() -> catalog.reconfigure("jobs", jobs(2)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must stay at least 3");
      assertThat(catalog.limiter("jobs").quota()).isEqualTo(jobs(6));

      catalog.reconfigure("jobs", jobs(4)); // 3 counted: 1 left, too few for 3
      assertThat(catalog.limiter("jobs").tryAcquire("all").remaining()).isZero();
      assertThat(catalog.limiter("other").tryAcquire("k").allowed()).isTrue();

      Map<String, Object> changed = new HashMap<>();
      changed.put("windowpane.limiters.jobs[0].permits", "10");
      changed.put("windowpane.limiters.added[0].permits", "1");
      changed.put("windowpane.limiters.added[0].window", "1s");
      app.getEnvironment().getPropertySources().addFirst(new MapPropertySource("mine", changed));
      WindowpaneCatalog.Applied applied = app.getBean(WindowpaneRefresher.class).refresh();
      assertThat(applied.reconfigured()).containsExactly("jobs");
      assertThat(applied.notApplied()).singleElement().asString()
          .contains("windowpane.limiters.added is new");
      assertThat(catalog.limiter("jobs").tryAcquire("all", 3).remaining())
          .as("4 counted, 3 more of 10").isEqualTo(3);
      assertThat(catalog.limiter("other").tryAcquire("k").allowed()).as("untouched: counted")
          .isFalse();
    }
  }
}
