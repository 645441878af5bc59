package io.windowpane.spring.internal;

/**
 * The {@code windowpane.*} properties cannot be used; the message names each property at fault
 * and what it allows. Fails the application's start-up.
 */
public final class InvalidWindowpanePropertiesException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public InvalidWindowpanePropertiesException(String problems, Throwable cause) {
    super(problems, cause);
  }
}
