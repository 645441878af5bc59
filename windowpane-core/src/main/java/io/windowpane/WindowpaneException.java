package io.windowpane;

/**
 * A failed engine call: the engine could not reach, or could not get an answer from, its store
 * within its timeouts (the cause is attached), or the store refused the call
 * ({@link CapacityExceededException}). Unchecked. Bad arguments are reported with
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
