package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.internal.PathRules.Compiled;
import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/** {@code windowpane.filter.rules} on a servlet stack. */
public final class ServletRateLimitFilter extends OncePerRequestFilter implements Ordered {

  private final PathRules rules;
  private final RateLimitGuard guard;
  private final int order;

  public ServletRateLimitFilter(PathRules rules, RateLimitGuard guard, int order) {
    this.rules = rules;
    this.guard = guard;
    this.order = order;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
      FilterChain chain) throws ServletException, IOException {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    List<Compiled> matching = rules.matching(request.getMethod(), path);
    if (!matching.isEmpty()) {
      Principal principal = request.getUserPrincipal();
      RequestView view = new RequestView(request.getRemoteAddr(), request.getMethod(), path,
          principal == null ? null : principal.getName(), request::getHeader);
      for (Compiled rule : matching) {
        Outcome outcome = guard.acquire(rule.target(), PathRules.key(rule, view));
        if (!outcome.letThrough()) {
          deny(response, outcome.exception(), request.getRequestURI());
          return;
        }
        outcome.headers().forEach(response::setHeader);
      }
    }
    chain.doFilter(request, response);
  }

  /** Writes the 429 problem of {@code denial}. */
  static void deny(HttpServletResponse response, RateLimitExceededException denial,
      String instance) throws IOException {
    response.setStatus(429);
    denial.headers().forEach(response::setHeader);
    response.setContentType(ProblemJson.CONTENT_TYPE);
    byte[] body = ProblemJson.body(denial, instance).getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  @Override
  public int getOrder() {
    return order;
  }
}
