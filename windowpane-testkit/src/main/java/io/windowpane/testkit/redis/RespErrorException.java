package io.windowpane.testkit.redis;

/**
 * An error reply ({@code -ERR ...}, {@code -NOAUTH ...}, {@code -WRONGTYPE ...}) from the server.
 * {@link RespClient#command} throws it for a top-level error and returns it as an element for an
 * error nested in an array reply (as in {@code EXEC}), so the rest of that reply is still read.
 */
public final class RespErrorException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** @param message the error line without the leading {@code -}, e.g. {@code "ERR unknown"} */
  public RespErrorException(String message) {
    super(message);
  }

  /** The error code: the first word of the message, e.g. {@code "ERR"} or {@code "NOAUTH"}. */
  public String code() {
    String message = getMessage();
    int space = message.indexOf(' ');
    return space < 0 ? message : message.substring(0, space);
  }
}
