package io.windowpane.server.internal;

/**
 * A request the service refuses, with its HTTP status, a stable error code and, for bad input,
 * the field at fault. Thrown before anything is recorded; turned into the JSON body
 * {@code {"error", "message", "field"}} by {@link Replies#error}.
 */
public final class ApiError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final String field;

  public ApiError(int status, String code, String field, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.field = field;
  }

  /** 400 {@code invalid_argument} for {@code field}. */
  public static ApiError invalid(String field, String message) {
    return new ApiError(400, "invalid_argument", field, message);
  }

  /** 400 {@code malformed_json}. */
  public static ApiError malformed(String message) {
    return new ApiError(400, "malformed_json", null, message);
  }

  /** 400 {@code unknown_<kind>}: the name in the path is not configured. */
  public static ApiError unknown(String kind, String name, Iterable<String> known) {
    return new ApiError(400, "unknown_" + kind, kind,
        "no " + kind + " named '" + name + "' is configured; configured: " + String.join(", ", known));
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** The field at fault, or null. */
  public String field() {
    return field;
  }
}
