package io.windowpane.spring.autoconfigure;

import io.windowpane.Windowpane;
import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.internal.WindowpaneEndpoint;
import io.windowpane.spring.internal.WindowpaneHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Actuator: the engine's health contributor ({@code windowpane}) and the endpoint. */
@AutoConfiguration(after = WindowpaneAutoConfiguration.class)
@ConditionalOnBean(WindowpaneCatalog.class)
public class WindowpaneActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  static class HealthContributor {
    @Bean(name = "windowpaneHealthIndicator")
    @ConditionalOnMissingBean(name = "windowpaneHealthIndicator")
    WindowpaneHealthIndicator windowpaneHealthIndicator(Windowpane windowpane) {
      return new WindowpaneHealthIndicator(windowpane);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
  static class Endpoint {
    @Bean
    @ConditionalOnMissingBean
    WindowpaneEndpoint windowpaneEndpoint(WindowpaneCatalog catalog) {
      return new WindowpaneEndpoint(catalog);
    }
  }
}
