package io.windowpane.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.windowpane.CapacityExceededException;
import io.windowpane.WindowpaneException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;

/**
 * Writing replies: JSON bodies, and the mapping of every failure to a status and error code.
 *
 * <p>The mapping: {@link ApiError} as it says; {@link IllegalArgumentException} from the library
 * 400 {@code invalid_argument}; {@link CapacityExceededException} 409; any other
 * {@link WindowpaneException} (the backend failed or timed out) 503 {@code backend_unavailable};
 * Javalin's 404, 405 and body-size refusals in the same JSON shape; anything else 500
 * {@code internal}, logged.
 */
final class Replies {

  private static final System.Logger LOG = System.getLogger("io.windowpane.server");
  private static final Pattern ARGUMENT = Pattern.compile("^[A-Za-z][A-Za-z0-9_.\\[\\]]*");

  private final ServiceMetrics metrics;
  private final String engine;
  private final int maxBodyBytes;

  Replies(ServiceMetrics metrics, String engine, int maxBodyBytes) {
    this.metrics = metrics;
    this.engine = engine;
    this.maxBodyBytes = maxBodyBytes;
  }

  /** 400 {@code body_too_large}; {@code size} is negative when unknown. */
  ApiError tooLarge(long size) {
    return new ApiError(400, "body_too_large", null, "the body must be at most "
        + maxBodyBytes + " bytes (server.maxBodyBytes)" + (size >= 0 ? ", was " + size : ""));
  }

  /** Writes {@code body} with {@code status}. */
  static void json(Context ctx, int status, ObjectNode body) {
    byte[] bytes;
    try {
      bytes = Json.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a reply could not be written as JSON", e);
    }
    ctx.status(status).contentType("application/json").result(bytes);
  }

  /** Writes the error reply for {@code failure}. */
  void failure(Context ctx, Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof HttpResponseException && ((HttpResponseException) t).getStatus() == 405) {
      String methods = ((HttpResponseException) t).getDetails().get("availableMethods");
      if (methods != null) {
        ctx.header("Allow", methods.replace(" ", ""));
      }
    }
    error(ctx, toApiError(t));
  }

  void error(Context ctx, ApiError error) {
    metrics.error(error.code());
    ObjectNode body = Json.object();
    body.put("error", error.code());
    body.put("message", error.getMessage());
    if (error.field() == null) {
      body.putNull("field");
    } else {
      body.put("field", error.field());
    }
    if (error.status() == 401) {
      ctx.header("WWW-Authenticate", "Bearer realm=\"windowpane\"");
    }
    json(ctx, error.status(), body);
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Whether {@code failure} means the backend failed (not the request). */
  static boolean isBackendFailure(Throwable failure) {
    Throwable t = unwrap(failure);
    return t instanceof WindowpaneException && !(t instanceof CapacityExceededException);
  }

  private ApiError toApiError(Throwable t) {
    if (t instanceof ApiError) {
      return (ApiError) t;
    }
    if (t instanceof io.windowpane.EventTimeException) {
      return ApiError.invalid("at", t.getMessage());
    }
    if (t instanceof IllegalArgumentException) {
      var m = ARGUMENT.matcher(String.valueOf(t.getMessage()));
      return ApiError.invalid(m.find() ? m.group() : null, t.getMessage());
    }
    if (t instanceof CapacityExceededException) {
      return new ApiError(409, "capacity_exceeded", null, t.getMessage());
    }
    if (t instanceof io.windowpane.KeyCreationRefusedException) {
      return new ApiError(503, "memory_pressure", null, t.getMessage());
    }
    if (t instanceof WindowpaneException) {
      return new ApiError(503, "backend_unavailable", null,
          "the " + engine + " backend failed: " + t.getMessage());
    }
    if (t instanceof HttpResponseException) {
      return fromJavalin((HttpResponseException) t);
    }
    LOG.log(System.Logger.Level.ERROR, "request failed", t);
    return new ApiError(500, "internal", null, "internal error: " + t);
  }

  private ApiError fromJavalin(HttpResponseException e) {
    switch (e.getStatus()) {
      case 404:
        return new ApiError(404, "not_found", null, "no such path; see /v1/openapi.yaml");
      case 405:
        return new ApiError(405, "method_not_allowed", null,
            "this path does not take that method; see /v1/openapi.yaml");
      case 413:
        return tooLarge(-1);
      default:
        return new ApiError(e.getStatus(), "http_" + e.getStatus(), null, e.getMessage());
    }
  }
}
