package io.windowpane;

/**
 * A backend did not answer within the engine's configured timeout. The operation may or may not
 * have taken effect on the backend (a request can time out after the server applied it); the
 * caller decides whether to fail open or closed.
 */
public class WindowpaneTimeoutException extends WindowpaneException {

  private static final long serialVersionUID = 1L;

  public WindowpaneTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
