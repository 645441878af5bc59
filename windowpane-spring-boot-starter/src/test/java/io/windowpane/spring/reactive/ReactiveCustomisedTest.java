package io.windowpane.spring.reactive;

import io.windowpane.spring.CustomisedScenarios;
import io.windowpane.spring.LocalScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/** The 429 and the keys customised, on WebFlux. */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {CustomisedScenarios.PROPERTIES, CustomisedScenarios.RENAMED,
        CustomisedScenarios.NO_POLICY, CustomisedScenarios.SHADOW, CustomisedScenarios.TAGS,
        "spring.main.web-application-type=reactive"})
@ActiveProfiles("demo")
@Import({LocalScenarios.Clock.class, CustomisedScenarios.OwnBody.class})
class ReactiveCustomisedTest extends CustomisedScenarios {
}
