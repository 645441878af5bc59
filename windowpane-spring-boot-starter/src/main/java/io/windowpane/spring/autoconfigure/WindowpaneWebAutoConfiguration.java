package io.windowpane.spring.autoconfigure;

import io.windowpane.spring.RateLimitDenialBody;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.WindowpaneProperties;
import io.windowpane.spring.internal.ExchangeContextFilter;
import io.windowpane.spring.internal.InvalidWindowpanePropertiesException;
import io.windowpane.spring.internal.PathRules;
import io.windowpane.spring.internal.RateLimitExceptionHandler;
import io.windowpane.spring.internal.RateLimitGuard;
import io.windowpane.spring.internal.ReactiveRateLimitFilter;
import io.windowpane.spring.internal.ServletRateLimitFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The web side: 429 problem+json for {@code RateLimitExceededException}, and the
 * {@code windowpane.filter.rules} as a servlet {@code Filter} or a WebFlux {@code WebFilter}.
 */
@AutoConfiguration(after = WindowpaneAutoConfiguration.class)
@ConditionalOnBean(WindowpaneCatalog.class)
@ConditionalOnClass(name = "org.springframework.web.util.pattern.PathPattern")
public class WindowpaneWebAutoConfiguration {

  static PathRules rules(WindowpaneProperties properties, WindowpaneCatalog catalog) {
    try {
      return new PathRules(properties.getFilter().getRules(), catalog);
    } catch (IllegalArgumentException e) {
      throw new InvalidWindowpanePropertiesException(e.getMessage(), e);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = Type.SERVLET)
  @ConditionalOnClass(name = {"jakarta.servlet.Filter",
      "org.springframework.web.servlet.DispatcherServlet"})
  static class Servlet {
    @Bean
    @ConditionalOnMissingBean
    RateLimitExceptionHandler.Servlet windowpaneRateLimitAdvice(RateLimitDenialBody bodies) {
      return new RateLimitExceptionHandler.Servlet(bodies);
    }

    @Bean
    @ConditionalOnMissingBean
    ServletRateLimitFilter windowpaneRateLimitFilter(WindowpaneProperties properties,
        WindowpaneCatalog catalog, RateLimitGuard guard, RateLimitDenialBody bodies) {
      return new ServletRateLimitFilter(rules(properties, catalog), guard,
          properties.getFilter().getOrder(), bodies);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = Type.REACTIVE)
  @ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
  static class Reactive {
    @Bean
    @ConditionalOnMissingBean
    RateLimitExceptionHandler.Reactive windowpaneRateLimitAdvice(RateLimitDenialBody bodies) {
      return new RateLimitExceptionHandler.Reactive(bodies);
    }

    @Bean
    ExchangeContextFilter windowpaneExchangeContextFilter() {
      return new ExchangeContextFilter();
    }

    @Bean
    @ConditionalOnMissingBean
    ReactiveRateLimitFilter windowpaneRateLimitFilter(WindowpaneProperties properties,
        WindowpaneCatalog catalog, RateLimitGuard guard, RateLimitDenialBody bodies) {
      return new ReactiveRateLimitFilter(rules(properties, catalog), guard,
          properties.getFilter().getOrder(), bodies);
    }
  }
}
