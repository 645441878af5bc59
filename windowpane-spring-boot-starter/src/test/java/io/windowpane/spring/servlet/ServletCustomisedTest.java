package io.windowpane.spring.servlet;

import io.windowpane.spring.CustomisedScenarios;
import io.windowpane.spring.LocalScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/** The 429 and the keys customised, on Spring MVC. */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {CustomisedScenarios.PROPERTIES, CustomisedScenarios.RENAMED,
        CustomisedScenarios.NO_POLICY, CustomisedScenarios.SHADOW, CustomisedScenarios.TAGS})
@ActiveProfiles("demo")
@Import({LocalScenarios.Clock.class, CustomisedScenarios.OwnBody.class})
class ServletCustomisedTest extends CustomisedScenarios {
}
