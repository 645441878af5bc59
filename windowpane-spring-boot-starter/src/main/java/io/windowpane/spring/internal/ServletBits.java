package io.windowpane.spring.internal;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.security.Principal;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/** The thread-bound servlet request (Spring MVC), when there is one. */
final class ServletBits implements HttpBits {

  private final HttpServletRequest request;
  private final HttpServletResponse response;

  private ServletBits(HttpServletRequest request, HttpServletResponse response) {
    this.request = request;
    this.response = response;
  }

  static HttpBits current() {
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (attributes instanceof ServletRequestAttributes s) {
      return new ServletBits(s.getRequest(), s.getResponse());
    }
    return NONE;
  }

  @Override
  public Object request() {
    return request;
  }

  @Override
  public RequestView view() {
    return view(request);
  }

  /** The view of a servlet request, for path rules' keys and the metric tags. */
  static RequestView view(HttpServletRequest request) {
    Principal principal = request.getUserPrincipal();
    return new RequestView(request.getRemoteAddr(), request.getMethod(),
        request.getRequestURI().substring(request.getContextPath().length()),
        principal == null ? null : principal.getName(), request::getHeader);
  }

  @Override
  public Principal principal() {
    return request.getUserPrincipal();
  }

  /**
   * On a denial too: the starter's 429 sets them again, and an application's own
   * {@code @ExceptionHandler} keeps them without copying them.
   */
  @Override
  public void headers(java.util.Map<String, String> headers) {
    if (response != null && !response.isCommitted()) {
      headers.forEach(response::setHeader);
    }
  }
}
