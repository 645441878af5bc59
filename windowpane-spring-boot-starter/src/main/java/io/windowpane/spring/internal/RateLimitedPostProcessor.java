package io.windowpane.spring.internal;

import java.lang.reflect.Method;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Proxies every bean with a {@link io.windowpane.spring.RateLimited} method (or type), and checks those
 * methods against the configuration as the bean is created, so that a bad annotation fails the
 * start-up.
 */
public final class RateLimitedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

  private static final long serialVersionUID = 1L;

  private final transient RateLimitedInterceptor interceptor;

  public RateLimitedPostProcessor(RateLimitedInterceptor interceptor) {
    this.interceptor = interceptor;
    this.advisor = new DefaultPointcutAdvisor(new StaticMethodMatcherPointcut() {
      @Override
      public boolean matches(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        return !RateLimitedInterceptor.annotations(specific, targetClass).isEmpty()
            || !RateLimitedInterceptor.annotations(method, targetClass).isEmpty();
      }
    }, interceptor);
    setBeforeExistingAdvisors(true);
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = AopUtils.getTargetClass(bean);
    ReflectionUtils.doWithMethods(type, method -> {
      if (!RateLimitedInterceptor.annotations(method, type).isEmpty()) {
        interceptor.validate(method, type);
      }
    });
    return super.postProcessAfterInitialization(bean, beanName);
  }
}
