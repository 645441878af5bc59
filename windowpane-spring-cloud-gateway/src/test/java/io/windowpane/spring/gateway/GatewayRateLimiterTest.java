package io.windowpane.spring.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.windowpane.ManualClock;
import io.windowpane.MillisClock;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Cloud Gateway route limited by windowpane (RequestRateLimiter with
 * windowpaneRateLimiter), in front of a backend on a free port, over real HTTP on the in-process
 * engine with a manual clock: two requests of a key pass with the RateLimit headers, the third
 * is refused 429 with Retry-After, another key passes, and the window slides.
 */
@SpringBootTest(classes = GatewayApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {
        "windowpane.limiters.edge[0].name=edge",
        "windowpane.limiters.edge[0].permits=2",
        "windowpane.limiters.edge[0].window=10s"})
@Import(GatewayRateLimiterTest.Clock.class)
class GatewayRateLimiterTest {

  static final long START = 1_700_000_000_250L;

  @TestConfiguration
  static class Clock {
    @Bean
    MillisClock windowpaneClock() {
      return ManualClock.at(START);
    }
  }

  static HttpServer backend;

  @DynamicPropertySource
  static void backend(DynamicPropertyRegistry registry) throws IOException {
    backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    backend.createContext("/", exchange -> {
      byte[] body = ("backend " + exchange.getRequestURI().getPath())
          .getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    backend.start();
    // the whole route here: Spring binds a list from one property source
    String route = "spring.cloud.gateway.server.webflux.routes[0].";
    registry.add(route + "id", () -> "api");
    registry.add(route + "uri", () -> "http://127.0.0.1:" + backend.getAddress().getPort());
    registry.add(route + "predicates[0]", () -> "Path=/api/**");
    registry.add(route + "filters[0].name", () -> "RequestRateLimiter");
    registry.add(route + "filters[0].args.rate-limiter", () -> "#{@windowpaneRateLimiter}");
    registry.add(route + "filters[0].args.key-resolver", () -> "#{@clientKey}");
    registry.add(route + "filters[0].args.windowpane-rate-limiter.limiter", () -> "edge");
  }

  @AfterAll
  static void stopBackend() {
    backend.stop(0);
  }

  @LocalServerPort
  int port;

  @org.springframework.beans.factory.annotation.Autowired
  MillisClock clock;

  HttpResponse<String> get(String path, String client) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).header("X-Client", client).GET().build();
    try {
      return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static String header(HttpResponse<?> reply, String name) {
    return reply.headers().firstValue(name).orElse(null);
  }

  @Test
  void route_twoPerKeyPer10s_slidingWindow_429WithTheHeaders() {
    HttpResponse<String> first = get("/api/hello", "a");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("backend /api/hello");
    assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"edge\";q=2;w=10");
    assertThat(header(first, "RateLimit")).isEqualTo("\"edge\";r=1;t=10");
    assertThat(get("/api/hello", "a").statusCode()).isEqualTo(200);

    HttpResponse<String> denied = get("/api/hello", "a");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(header(denied, "RateLimit")).isEqualTo("\"edge\";r=0;t=10");
    assertThat(header(denied, "Retry-After")).isEqualTo("10");
    assertThat(get("/api/hello", "b").statusCode()).isEqualTo(200);

    ((ManualClock) clock).advance(10_000);
    assertThat(get("/api/hello", "a").statusCode()).isEqualTo(200);
  }
}
