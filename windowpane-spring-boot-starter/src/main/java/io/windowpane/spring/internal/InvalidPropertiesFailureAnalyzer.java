package io.windowpane.spring.internal;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints bad {@code windowpane.*} properties as Spring Boot's "APPLICATION FAILED TO START". */
public final class InvalidPropertiesFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidWindowpanePropertiesException> {

  @Override
  protected FailureAnalysis analyze(Throwable root, InvalidWindowpanePropertiesException cause) {
    return new FailureAnalysis("Invalid windowpane properties:\n" + cause.getMessage(),
        "Fix the properties named above; docs/spring-boot.md lists every windowpane property"
            + " with its range.", cause);
  }
}
