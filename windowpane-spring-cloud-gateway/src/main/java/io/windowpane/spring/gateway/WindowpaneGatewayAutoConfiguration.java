package io.windowpane.spring.gateway;

import io.windowpane.spring.WindowpaneCatalog;
import io.windowpane.spring.autoconfigure.WindowpaneAutoConfiguration;
import io.windowpane.spring.internal.RateLimitGuard;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.config.GatewayAutoConfiguration;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * The bean {@code windowpaneRateLimiter} ({@link WindowpaneGatewayRateLimiter}), before the
 * gateway's own configuration so that its {@code RequestRateLimiter} filter finds it (as the
 * default rate limiter, or by {@code rate-limiter: "#{@windowpaneRateLimiter}"}).
 */
@AutoConfiguration(after = WindowpaneAutoConfiguration.class,
    before = GatewayAutoConfiguration.class)
@ConditionalOnBean(WindowpaneCatalog.class)
public class WindowpaneGatewayAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public WindowpaneGatewayRateLimiter windowpaneRateLimiter(WindowpaneCatalog catalog,
      RateLimitGuard guard, ConfigurationService configurationService) {
    return new WindowpaneGatewayRateLimiter(catalog, guard, configurationService);
  }
}
