package io.windowpane.spring;

import static io.windowpane.spring.Http.header;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The same applications with the 429 and the keys customised, over real HTTP on the in-process
 * engine: {@code windowpane.keys.on-null=reject}, the RateLimit header renamed, RateLimit-Policy
 * left out, headers from shadow limiters asked for, and the application's own
 * {@link RateLimitDenialBody}. Subclasses start the application with {@link #PROPERTIES} and
 * import {@link OwnBody} and {@link LocalScenarios.Clock}.
 */
public abstract class CustomisedScenarios {

  public static final String PROPERTIES = "windowpane.keys.on-null=reject";
  public static final String RENAMED = "windowpane.response.headers.limit=X-RateLimit";
  public static final String NO_POLICY = "windowpane.response.headers.policy=";
  public static final String SHADOW = "windowpane.response.headers.shadow=true";
  public static final String TAGS = "windowpane.metrics.tags.plan=header('X-Plan')";

  /** The application's own 429 body. */
  @TestConfiguration
  public static class OwnBody {
    @Bean
    public RateLimitDenialBody ownDenialBody() {
      return (denial, path) -> new RateLimitDenialBody.Body("text/plain;charset=UTF-8",
          "slow down: " + denial.limiter() + " at " + path + ", "
              + denial.decision().retryAfterMillis() + " ms");
    }
  }

  @LocalServerPort
  int port;

  @Test
  void nullKey_reject_answers400Problem_forTheAnnotationAndAPathRule() {
    Http http = new Http(port);
    HttpResponse<String> annotation = http.get("/nokey");
    assertThat(annotation.statusCode()).isEqualTo(400);
    assertThat(header(annotation, "Content-Type")).isEqualTo("application/problem+json");
    assertThat(annotation.body()).startsWith("{\"type\":\"about:blank\",\"title\":\"Bad"
        + " Request\",\"status\":400,\"detail\":\"the rate-limit key of limiter demo is"
        + " missing: ").endsWith("\",\"instance\":\"/nokey\",\"limiter\":\"demo\"}");
    assertThat(http.get("/nokey", "X-Key", "k").statusCode()).isEqualTo(200);

    HttpResponse<String> rule = http.get("/filtered/1");
    assertThat(rule.statusCode()).isEqualTo(400);
    assertThat(rule.body()).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\","
        + "\"status\":400,\"detail\":\"the rate-limit key of limiter filtered is missing:"
        + " 'header('X-Api-Key')' gave no value\",\"instance\":\"/filtered/1\","
        + "\"limiter\":\"filtered\"}");
  }

  @Test
  void denial_ownBody_renamedHeader_policyLeftOut_annotationAndPathRuleAlike() {
    Http http = new Http(port);
    HttpResponse<String> allowed = http.get("/hello", "X-Client", "c");
    assertThat(header(allowed, "X-RateLimit")).isEqualTo("\"demo\";r=1;t=10");
    assertThat(header(allowed, "RateLimit")).isNull();
    assertThat(header(allowed, "RateLimit-Policy")).isNull();
    http.get("/hello", "X-Client", "c");
    HttpResponse<String> denied = http.get("/hello", "X-Client", "c");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "Content-Type")).isEqualTo("text/plain;charset=UTF-8");
    assertThat(denied.body()).isEqualTo("slow down: demo at /hello, 9750 ms");
    assertThat(header(denied, "X-RateLimit")).isEqualTo("\"demo\";r=0;t=10");
    assertThat(header(denied, "Retry-After")).isEqualTo("10");
    assertThat(header(denied, "RateLimit-Policy")).isNull();

    assertThat(http.get("/filtered/1", "X-Api-Key", "c").statusCode()).isEqualTo(200);
    HttpResponse<String> rule = http.get("/filtered/2", "X-Api-Key", "c");
    assertThat(rule.statusCode()).isEqualTo(429);
    assertThat(header(rule, "Content-Type")).isEqualTo("text/plain;charset=UTF-8");
    assertThat(rule.body()).isEqualTo("slow down: filtered at /filtered/2, 9750 ms");
    assertThat(header(rule, "X-RateLimit")).isEqualTo("\"filtered\";r=0;t=10");
    assertThat(header(rule, "RateLimit-Policy")).isNull();
  }

  @Test
  void shadow_withHeadersAskedFor_sendsThem() {
    Http http = new Http(port);
    HttpResponse<String> over = http.get("/trial/h");
    assertThat(over.statusCode()).isEqualTo(200);
    assertThat(header(over, "X-RateLimit")).isEqualTo("\"trial\";r=0;t=10");
  }

  @Test
  void metricTags_fromTheRequest_onAnnotationAndPathRuleDecisions() {
    Http http = new Http(port);
    assertThat(http.get("/hello", "X-Client", "tags", "X-Plan", "gold").statusCode())
        .isEqualTo(200);
    assertThat(http.get("/filtered/t", "X-Api-Key", "tags", "X-Plan", "silver").statusCode())
        .isEqualTo(200);
    HttpResponse<String> gold = http.get("/actuator/metrics/windowpane.decisions"
        + "?tag=limiter:demo&tag=plan:gold");
    assertThat(gold.statusCode()).isEqualTo(200);
    assertThat(gold.body()).contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
    HttpResponse<String> silver = http.get("/actuator/metrics/windowpane.decisions"
        + "?tag=limiter:filtered&tag=plan:silver&tag=outcome:allowed");
    assertThat(silver.statusCode()).isEqualTo(200);
    assertThat(silver.body()).contains("{\"statistic\":\"COUNT\",\"value\":1.0}");
    // without the header the tag is there, as none: every decision meter has the same keys
    http.get("/trial/tags");
    assertThat(http.get("/actuator/metrics/windowpane.decisions"
        + "?tag=limiter:trial&tag=plan:none").statusCode()).isEqualTo(200);
  }
}
