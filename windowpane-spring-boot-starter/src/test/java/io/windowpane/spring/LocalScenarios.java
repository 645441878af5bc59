package io.windowpane.spring;

import static io.windowpane.spring.Http.header;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.MillisClock;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * What both web stacks must do on the in-process engine, over real HTTP, with a manual clock so
 * that bodies and headers are exact. Each test uses its own keys (the context is shared).
 */
public abstract class LocalScenarios {

  /** 250 ms past a second. */
  public static final long START = 1_700_000_000_250L;

  /** The manual clock the starter's local engine and headers run on. */
  @TestConfiguration
  public static class Clock {
    @Bean
    public MillisClock windowpaneClock() {
      return ManualClock.at(START);
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  MillisClock clock;

  @Autowired
  org.springframework.context.ConfigurableApplicationContext context;

  /**
   * Closes its context afterwards: after Spring Cloud's rebinding on the change event, a
   * WebFlux context started later in the same JVM (ReactiveCustomisedTest) lost a request
   * (twice in a row, never with this context closed).
   */
  @Test
  @org.springframework.test.annotation.DirtiesContext(methodMode =
      org.springframework.test.annotation.DirtiesContext.MethodMode.AFTER_METHOD)
  void propertyChangedAtRunTime_changesTheNextDecision_andTheCountsStay() {
    RuntimeLimits.propertyChangedAtRunTime(http(), context, "l");
  }

  protected Http http() {
    return new Http(port);
  }

  protected ManualClock manual() {
    return (ManualClock) clock;
  }

  @Test
  void rateLimited_keyFromRequest_allowsTwoThenAnswers429ProblemWithExactHeaders() {
    Http http = http();
    HttpResponse<String> first = http.get("/hello", "X-Client", "a");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("hello");
    assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"demo\";q=2;w=10");
    assertThat(header(first, "RateLimit")).isEqualTo("\"demo\";r=1;t=10");
    assertThat(http.get("/hello", "X-Client", "a").statusCode()).isEqualTo(200);

    HttpResponse<String> denied = http.get("/hello", "X-Client", "a");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Content-Type")).isEqualTo("application/problem+json");
    assertThat(header(denied, "RateLimit-Policy")).isEqualTo("\"demo\";q=2;w=10");
    assertThat(header(denied, "RateLimit")).isEqualTo("\"demo\";r=0;t=10");
    assertThat(header(denied, "Retry-After")).isEqualTo("10");
    assertThat(denied.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many"
        + " Requests\",\"status\":429,\"detail\":\"limit demo of limiter demo: 2 per 10s; retry"
        + " after 9750 ms\",\"instance\":\"/hello\",\"limiter\":\"demo\",\"deniedBy\":{\"name\":"
        + "\"demo\",\"permits\":2,\"windowMillis\":10000},\"retryAfterMillis\":9750,"
        + "\"degraded\":false}");

    assertThat(http.get("/hello", "X-Client", "b").statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimited_keyFromArgumentAndPrincipal_countsPerArgument() {
    Http http = http();
    assertThat(http.get("/users/7").statusCode()).isEqualTo(200);
    assertThat(http.get("/users/7").statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http.get("/users/7");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"instance\":\"/users/7\",\"limiter\":\"demo\"");
    assertThat(http.get("/users/8").statusCode()).isEqualTo(200);
  }

  @Test
  void rateLimited_keyFromPrincipal_eachUserHasItsOwnCount() {
    Http http = http();
    assertThat(http.get("/users/9", "X-User", "ann").statusCode()).isEqualTo(200);
    assertThat(http.get("/users/9", "X-User", "ann").statusCode()).isEqualTo(200);
    assertThat(http.get("/users/9", "X-User", "ann").statusCode()).isEqualTo(429);
    assertThat(http.get("/users/9", "X-User", "bob").statusCode()).isEqualTo(200);
    assertThat(http.get("/users/9").statusCode()).isEqualTo(200); // anonymous: its own key
  }

  @Test
  void twoAnnotations_formOneQuota_aDenialRecordsInNeither() {
    Http http = http();
    assertThat(http.get("/combined/x").statusCode()).isEqualTo(200);
    assertThat(http.get("/combined/x").statusCode()).isEqualTo(200);
    HttpResponse<String> perSecond = http.get("/combined/x");
    assertThat(perSecond.statusCode()).isEqualTo(429);
    assertThat(perSecond.body()).contains("\"limiter\":\"per-second:per-minute\","
        + "\"deniedBy\":{\"name\":\"2/1s\",\"permits\":2,\"windowMillis\":1000}");
    assertThat(header(perSecond, "RateLimit-Policy"))
        .isEqualTo("\"2/1s\";q=2;w=1, \"3/1m\";q=3;w=60");

    manual().advance(1_000);
    // the denied call took nothing from 3/1m: one more fits there
    assertThat(http.get("/combined/x").statusCode()).isEqualTo(200);
    manual().advance(1_000);
    HttpResponse<String> perMinute = http.get("/combined/x");
    assertThat(perMinute.statusCode()).isEqualTo(429);
    assertThat(perMinute.body()).contains("\"deniedBy\":{\"name\":\"3/1m\",\"permits\":3,"
        + "\"windowMillis\":60000}");
    // reset: 60 s less the 4,250 ms already spent in the current 6 s pane, rounded up
    assertThat(header(perMinute, "RateLimit")).isEqualTo("\"3/1m\";r=0;t=56");
  }

  @Test
  void shadowLimiter_neverDenies_butCountsWouldDeny() {
    Http http = http();
    assertThat(http.get("/trial/s").statusCode()).isEqualTo(200);
    HttpResponse<String> over = http.get("/trial/s");
    assertThat(over.statusCode()).isEqualTo(200);
    assertThat(over.body()).isEqualTo("trial s");
    assertThat(header(over, "Retry-After")).isNull();
    // a limit that is not enforced sends no rate-limit headers (windowpane.response.headers.shadow)
    assertThat(header(over, "RateLimit")).isNull();
    assertThat(header(over, "RateLimit-Policy")).isNull();
    HttpResponse<String> metric = http.get(
        "/actuator/metrics/windowpane.decisions?tag=limiter:trial&tag=outcome:would_deny");
    assertThat(metric.statusCode()).isEqualTo(200);
    assertThat(metric.body()).contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
  }

  @Test
  void filterRule_keyFromHeader_deniesSecondRequestOfAKey() {
    Http http = http();
    HttpResponse<String> first = http.get("/filtered/1", "X-Api-Key", "k1");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("filtered 1");
    assertThat(header(first, "RateLimit")).isEqualTo("\"filtered\";r=0;t=10");
    HttpResponse<String> denied = http.get("/filtered/2", "X-Api-Key", "k1");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Content-Type")).isEqualTo("application/problem+json");
    assertThat(header(denied, "Retry-After")).isEqualTo("10");
    assertThat(denied.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many"
        + " Requests\",\"status\":429,\"detail\":\"limit filtered of limiter filtered: 1 per"
        + " 10s; retry after 9750 ms\",\"instance\":\"/filtered/2\",\"limiter\":\"filtered\","
        + "\"deniedBy\":{\"name\":\"filtered\",\"permits\":1,\"windowMillis\":10000},"
        + "\"retryAfterMillis\":9750,\"degraded\":false}");
    assertThat(http.get("/filtered/1", "X-Api-Key", "k2").statusCode()).isEqualTo(200);
  }

  @Test
  void actuator_healthAndEndpoint() {
    Http http = http();
    HttpResponse<String> health = http.get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).startsWith("{\"details\":{\"engine\":\"local\",\"latencyMillis\":")
        .endsWith("},\"status\":\"UP\"}");
    HttpResponse<String> all = http.get("/actuator/windowpane");
    assertThat(all.statusCode()).isEqualTo(200);
    assertThat(all.body()).contains("\"engine\":\"local\"")
        .contains("{\"name\":\"trial\",\"shadow\":true,\"limits\":[{\"name\":\"trial\","
            + "\"windowMillis\":10000,\"algorithm\":\"SLIDING_PANES\",\"permits\":1}]}")
        .contains("\"counters\":[{\"name\":\"logins\",\"windowMillis\":60000,"
            + "\"algorithm\":\"SLIDING_PANES\"}]");
    HttpResponse<String> count = http.get("/actuator/windowpane/logins?key=alice");
    assertThat(count.body())
        .isEqualTo("{\"name\":\"logins\",\"key\":\"alice\",\"kind\":\"counter\",\"count\":0}");
  }

  @Test
  void actuator_unknownName_answers404() {
    assertThat(http().get("/actuator/windowpane/nothing?key=a").statusCode()).isEqualTo(404);
  }

  @Test
  void actuator_limiter_showsItsPeekForAKey_withoutTakingAnything() {
    Http http = http();
    assertThat(http.get("/hello", "X-Client", "peek").statusCode()).isEqualTo(200);
    String peek = "/actuator/windowpane/demo?key=client:peek";
    HttpResponse<String> one = http.get(peek);
    assertThat(one.statusCode()).isEqualTo(200);
    assertThat(one.body()).isEqualTo("{\"name\":\"demo\",\"key\":\"client:peek\",\"kind\":"
        + "\"limiter\",\"shadow\":false,\"holdsState\":true,\"peek\":{\"allowed\":true,"
        + "\"remaining\":0,\"deniedBy\":null,\"retryAfterMillis\":0}}");
    assertThat(http.get(peek).body()).isEqualTo(one.body()); // the peek took nothing
    assertThat(http.get("/hello", "X-Client", "peek").statusCode()).isEqualTo(200);
    assertThat(http.get(peek).body()).contains("\"peek\":{\"allowed\":false,\"remaining\":0,"
        + "\"deniedBy\":\"demo\",\"retryAfterMillis\":9750}");
  }

  @Test
  void nullKey_byDefault_countsUnderOneSharedKey_neverA500() {
    Http http = http();
    assertThat(http.get("/nokey").statusCode()).isEqualTo(200);
    assertThat(http.get("/nokey").statusCode()).isEqualTo(200);
    HttpResponse<String> third = http.get("/nokey");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(http.get("/nokey", "X-Key", "k").statusCode()).isEqualTo(200);
    // a null navigated into (#principal.name without a principal) is a missing key too
    for (int i = 0; i < 3; i++) {
      assertThat(http.get("/whoami").statusCode()).isEqualTo(200);
    }
    assertThat(http.get("/whoami").statusCode()).isEqualTo(429);
    assertThat(http.get("/whoami", "X-User", "ann").statusCode()).isEqualTo(200);
    // a path rule's missing header: the same shared key
    assertThat(http.get("/filtered/none").statusCode()).isEqualTo(200);
    assertThat(http.get("/filtered/none").statusCode()).isEqualTo(429);
  }

  @Test
  void ownExceptionHandler_keepsTheRateLimitHeaders_withoutCopyingThem() {
    Http http = http();
    HttpResponse<String> first = http.get("/own/1");
    assertThat(first.statusCode()).isEqualTo(200);
    HttpResponse<String> denied = http.get("/own/1");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).isEqualTo("slow down");
    assertThat(header(denied, "RateLimit-Policy")).isEqualTo("\"filtered\";q=1;w=10");
    assertThat(header(denied, "RateLimit")).isEqualTo("\"filtered\";r=0;t=10");
    assertThat(header(denied, "Retry-After")).isEqualTo("10");
  }

  @Test
  void conditions_skipAndExecute_decideWhetherACallIsLimited() {
    Http http = http();
    assertThat(http.get("/conditional/a").statusCode()).isEqualTo(200);
    HttpResponse<String> internal = http.get("/conditional/a", "X-Internal", "yes");
    assertThat(internal.statusCode()).isEqualTo(200);
    assertThat(header(internal, "RateLimit")).isNull();
    assertThat(http.get("/conditional/a").statusCode()).isEqualTo(429);
    for (int i = 0; i < 3; i++) {
      assertThat(http.get("/conditional/free").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void pathRuleConditions_skipAndExecute() {
    Http http = http();
    assertThat(http.get("/gated/1", "X-Internal", "yes").statusCode()).isEqualTo(200);
    assertThat(http.get("/gated/1", "X-Internal", "yes").statusCode()).isEqualTo(200);
    assertThat(http.get("/gated/free").statusCode()).isEqualTo(200);
    assertThat(http.get("/gated/free").statusCode()).isEqualTo(200);
    HttpResponse<String> first = http.get("/gated/1");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit")).isEqualTo("\"filtered\";r=0;t=10");
    assertThat(http.get("/gated/2").statusCode()).isEqualTo(429);
  }

  @Test
  void fallbackMethod_answersInsteadOfThe429_withTheDenial() {
    Http http = http();
    assertThat(http.get("/fallback/x").body()).isEqualTo("fallback x");
    HttpResponse<String> busy = http.get("/fallback/x");
    assertThat(busy.statusCode()).isEqualTo(200);
    assertThat(busy.body()).isEqualTo("busy x, retry after 9750 ms");
    assertThat(header(busy, "RateLimit")).isEqualTo("\"filtered\";r=0;t=10");
    assertThat(header(busy, "Retry-After")).isNull(); // answered, not refused
  }

  @Test
  void classLevelAnnotation_limitsEveryMethod_exceptTheExemptOne() {
    Http http = http();
    assertThat(http.get("/cls/a").body()).isEqualTo("limited a");
    assertThat(http.get("/cls/a").statusCode()).isEqualTo(429);
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> exempt = http.get("/cls-exempt/a");
      assertThat(exempt.statusCode()).isEqualTo(200);
      assertThat(exempt.body()).isEqualTo("exempt a");
      assertThat(header(exempt, "RateLimit")).isNull();
    }
  }
}
