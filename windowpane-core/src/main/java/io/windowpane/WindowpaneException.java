package io.windowpane;

/**
 * A backend failure: the engine could not reach, or could not get an answer from, its store
 * within its timeouts. Unchecked; the cause is attached. Bad arguments are reported with
 * {@link IllegalArgumentException} instead, before anything happens.
 */
public class WindowpaneException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public WindowpaneException(String message, Throwable cause) {
    super(message, cause);
  }

  public WindowpaneException(String message) {
    super(message);
  }
}
