package io.windowpane.spring.servlet;

import io.windowpane.spring.ChainKillScenarios;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/** Redis killed under load on Spring MVC, through the chain [redis, local]. */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT)
class ServletChainKillIT extends ChainKillScenarios {}
