package io.windowpane.spring.internal;

import io.windowpane.spring.internal.RateLimitGuard.Outcome;
import java.security.Principal;

/** The current request, its principal, and a way to add headers to its response. */
interface HttpBits {

  HttpBits NONE = new HttpBits() {};

  default Object request() {
    return null;
  }

  default Principal principal() {
    return null;
  }

  /** The request as path rules and metric tags see it, or null outside a request. */
  default RequestView view() {
    return null;
  }

  /** Adds {@code headers} (a decision's) to the response when it is not sent yet. */
  default void headers(java.util.Map<String, String> headers) {}
}
