package io.windowpane.spring.reactive;

import io.windowpane.spring.LocalScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/** The starter on WebFlux and the in-process engine. */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
@ActiveProfiles("demo")
@Import(LocalScenarios.Clock.class)
class ReactiveLocalTest extends LocalScenarios {
}
