package io.windowpane.spring.reactive;

import io.windowpane.spring.ChainKillScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** Redis killed under load on WebFlux, through the chain [redis, local]. */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=reactive")
class ReactiveChainKillIT extends ChainKillScenarios {}
