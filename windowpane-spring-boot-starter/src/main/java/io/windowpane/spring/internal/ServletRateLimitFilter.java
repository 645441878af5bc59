package io.windowpane.spring.internal;

import io.windowpane.spring.RateLimitDenialBody;
import io.windowpane.spring.RateLimitExceededException;
import io.windowpane.spring.RateLimitKeyException;
import io.windowpane.spring.internal.PathRules.Compiled;
import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/** {@code windowpane.filter.rules} on a servlet stack. */
public final class ServletRateLimitFilter extends OncePerRequestFilter implements Ordered {

  private final PathRules rules;
  private final RateLimitGuard guard;
  private final int order;
  private final RateLimitDenialBody bodies;

  public ServletRateLimitFilter(PathRules rules, RateLimitGuard guard, int order,
      RateLimitDenialBody bodies) {
    this.rules = rules;
    this.guard = guard;
    this.order = order;
    this.bodies = bodies;
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
      FilterChain chain) throws ServletException, IOException {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    List<Compiled> matching = rules.matching(request.getMethod(), path);
    if (!matching.isEmpty()) {
      RequestView view = ServletBits.view(request);
      for (Compiled rule : matching) {
        if (!PathRules.applies(rule, view)) {
          continue;
        }
        String key;
        try {
          key = PathRules.key(rule, view, guard);
        } catch (RateLimitKeyException missing) {
          write(response, 400, ProblemJson.CONTENT_TYPE,
              ProblemJson.missingKey(missing, request.getRequestURI()));
          return;
        }
        if (key == null) {
          continue; // windowpane.keys.on-null: skip
        }
        Outcome outcome = guard.acquire(rule.target(), key, view);
        if (!outcome.letThrough()) {
          RateLimitExceededException denial = outcome.exception();
          denial.headers().forEach(response::setHeader);
          RateLimitDenialBody.Body body = bodies.body(denial, request.getRequestURI());
          write(response, 429, body.contentType(), body.content());
          return;
        }
        outcome.headers().forEach(response::setHeader);
      }
    }
    chain.doFilter(request, response);
  }

  private static void write(HttpServletResponse response, int status, String contentType,
      String content) throws IOException {
    response.setStatus(status);
    response.setContentType(contentType);
    byte[] body = content.getBytes(StandardCharsets.UTF_8);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  @Override
  public int getOrder() {
    return order;
  }
}
