package io.windowpane.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.windowpane.spring.LocalScenarios;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/**
 * The starter's spans on Spring MVC with Boot's Micrometer Tracing over OpenTelemetry, captured
 * by an in-memory exporter: a {@code @RateLimited} decision is a span in the request's trace
 * (which joined the caller's traceparent), with the engine's call as its child.
 */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "management.tracing.sampling.probability=1.0")
@ActiveProfiles("demo")
@AutoConfigureTracing
@Import({LocalScenarios.Clock.class, ServletTracingTest.Spans.class})
class ServletTracingTest {

  static final String TRACE = "0af7651916cd43dd8448eb211c80319c";

  /** Keeps every ended span in memory. */
  @TestConfiguration
  static class Spans {
    @Bean
    InMemorySpanExporter inMemorySpanExporter() {
      return InMemorySpanExporter.create();
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  InMemorySpanExporter spans;

  @Autowired
  SdkTracerProvider tracerProvider;

  @Test
  void rateLimitedCall_isASpanInTheRequestsTrace_withTheEngineCallUnderIt() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/hello"))
        .header("X-Client", "traced").header("traceparent", "00-" + TRACE
            + "-b7ad6b7169203331-01").build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    tracerProvider.forceFlush().join(10, TimeUnit.SECONDS);

    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData decision = all.stream().filter(s -> s.getName().equals("windowpane demo"))
        .findFirst().orElseThrow(() -> new AssertionError("no decision span in " + all));
    assertThat(decision.getTraceId()).isEqualTo(TRACE);
    SpanData server = all.stream()
        .filter(s -> s.getSpanId().equals(decision.getParentSpanId())).findFirst()
        .orElseThrow(() -> new AssertionError("the decision's parent is not exported: " + all));
    assertThat(server.getParentSpanId()).isEqualTo("b7ad6b7169203331"); // the caller's span
    assertThat(decision.getAttributes().asMap()).extractingFromEntries(e -> e.getKey().getKey()
        + "=" + e.getValue()).contains("windowpane.limiter=demo", "windowpane.engine=local",
        "windowpane.member=local", "windowpane.outcome=allowed", "windowpane.degraded=false");
    assertThat(all).filteredOn(s -> s.getParentSpanId().equals(decision.getSpanId()))
        .singleElement().satisfies(call -> {
          assertThat(call.getName()).isEqualTo("local tryAcquire");
          assertThat(call.getAttributes().asMap()).extractingFromEntries(
              e -> e.getKey().getKey() + "=" + e.getValue())
              .contains("windowpane.fallback=false", "windowpane.operation=tryAcquire");
        });
  }
}
