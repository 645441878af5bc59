package io.windowpane.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The demo over real HTTP: what docs/spring-boot.md's transcript shows. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class DemoApplicationTest {

  @LocalServerPort
  int port;

  HttpResponse<String> send(String method, String path) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void hello_twoAllowedThenTooManyRequests() throws Exception {
    assertThat(send("GET", "/hello").statusCode()).isEqualTo(200);
    HttpResponse<String> second = send("GET", "/hello");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.headers().firstValue("RateLimit-Policy")).hasValue("\"per-10s\";q=2;w=10");
    HttpResponse<String> third = send("GET", "/hello");
    assertThat(third.statusCode()).isEqualTo(429);
    assertThat(third.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(third.body()).startsWith("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\","
        + "\"status\":429,\"detail\":\"limit per-10s of limiter api: 2 per 10s; retry after ");
  }

  @Test
  void search_inShadowMode_neverRefused() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(send("GET", "/search?q=shoes").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void login_limitedByThePathRule() throws Exception {
    for (int i = 1; i <= 3; i++) {
      HttpResponse<String> ok = send("POST", "/login?user=ann");
      assertThat(ok.body()).isEqualTo("ann logged in " + i + " times in 10 minutes\n");
    }
    assertThat(send("POST", "/login?user=ann").statusCode()).isEqualTo(429);
  }
}
