package io.windowpane.parentdemo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The same application on Spring Boot's managed dependencies with the in-process engine: its
 * configuration file without the Redis section ({@code local-demo.yml}, {@code engine.type:
 * local}); it starts without any Redis and answers the third call within the window with 429.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.config.name=local-demo")
class ParentDemoLocalTest {

  @LocalServerPort
  int port;

  private HttpResponse<String> get(String path) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .GET().build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void hello_onTheLocalEngine_twoAllowedThenTooManyRequests() throws Exception {
    assertThat(get("/hello").statusCode()).isEqualTo(200);
    assertThat(get("/hello").statusCode()).isEqualTo(200);
    HttpResponse<String> third = get("/hello");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.body()).contains("\"limiter\":\"api\"", "\"degraded\":false");
    HttpResponse<String> health = get("/actuator/health/windowpane");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).startsWith("{\"details\":{\"engine\":\"local\",")
        .endsWith("\"status\":\"UP\"}");
  }
}
