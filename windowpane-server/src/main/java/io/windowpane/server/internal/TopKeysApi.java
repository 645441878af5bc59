package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.windowpane.TopKey;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code GET /v1/{limiters,counters,stats}/{name}/top}: a window's heaviest keys over the current
 * window, {@code ?n=} 1 to {@value #MAX_N} (default {@value #DEFAULT_N}), and for a limiter
 * {@code ?by=events|denied}. 200 {@code {"<kind>", "by", "n", "keys": [{"key", "count",
 * "maxError"}]}}, heaviest first; 501 {@code not_supported} when the engine cannot rank keys or
 * the service runs with {@code server.topKeys: 0}. Reads only: nothing is recorded or counted.
 */
final class TopKeysApi {

  static final int MAX_N = 100;
  static final int DEFAULT_N = 10;
  static final Set<String> LIMITER_QUERY = Set.of("n", "by");
  static final Set<String> WINDOW_QUERY = Set.of("n", "by");

  private TopKeysApi() {}

  /** What a top request asks: how many keys and by what. */
  record Ask(int n, boolean denied) {}

  /** The query of a top request; {@code denials} says whether {@code by=denied} is allowed. */
  static Ask ask(Service service, Context ctx, boolean denials) {
    service.onlyQuery(ctx, denials ? LIMITER_QUERY : WINDOW_QUERY);
    String by = ctx.queryParam("by");
    boolean denied = false;
    if (by != null) {
      if (by.equals("denied") && denials) {
        denied = true;
      } else if (!by.equals("events")) {
        throw ApiError.invalid("by", "by must be " + (denials ? "events or denied" : "events")
            + ", was '" + by + "'");
      }
    }
    String n = ctx.queryParam("n");
    if (n == null) {
      return new Ask(DEFAULT_N, denied);
    }
    int value;
    try {
      value = Integer.parseInt(n);
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value < 1 || value > MAX_N) {
      throw ApiError.invalid("n", "n must be an integer in [1, " + MAX_N + "], was '" + n + "'");
    }
    return new Ask(value, denied);
  }

  /** Writes the ranking, or 501 when there is none. */
  static void reply(Service service, Context ctx, String kind, String name, Ask ask,
      Optional<List<TopKey>> top) {
    if (top.isEmpty()) {
      throw notSupported(service, "top keys");
    }
    ObjectNode body = Json.object();
    body.put(kind, name);
    body.put("by", ask.denied() ? "denied" : "events");
    body.put("n", ask.n());
    ArrayNode keys = body.putArray("keys");
    for (TopKey t : top.get()) {
      ObjectNode k = keys.addObject();
      k.put("key", t.key());
      k.put("count", t.count());
      k.put("maxError", t.maxError());
    }
    Replies.json(ctx, 200, body);
  }

  /** 501 {@code not_supported}: what the engine (or this service's configuration) cannot do. */
  static ApiError notSupported(Service service, String what) {
    return new ApiError(501, "not_supported", null, what + " are not available here: the "
        + service.engineName() + " engine cannot answer them"
        + (what.equals("top keys") ? ", or server.topKeys is 0" : ""));
  }
}
