package io.windowpane.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spring.Http;
import io.windowpane.spring.LocalScenarios;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/** The starter on Spring MVC and the in-process engine. */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@ActiveProfiles("demo")
@Import(LocalScenarios.Clock.class)
class ServletLocalTest extends LocalScenarios {

  @Test
  void rateLimited_onAServiceMethod_deniesThroughTheController() {
    Http http = http();
    assertThat(http.get("/work/1").body()).isEqualTo("worked 1");
    var denied = http.get("/work/1");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"instance\":\"/work/1\",\"limiter\":\"demo\"");
  }
}
