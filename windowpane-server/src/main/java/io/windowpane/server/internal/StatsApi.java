package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.windowpane.CapacityExceededException;
import io.windowpane.EventTimeException;
import io.windowpane.Summary;
import io.windowpane.WindowStats;
import io.windowpane.WindowpaneException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code /v1/stats}: record, summary, their batch forms, and the descriptions. A record batch is
 * checked whole before anything is recorded; its records are then sent together, each recorded
 * atomically on its own (not all at once). When exact windows refuse some (full), the reply is a
 * 409 naming them, and the others are recorded.
 */
final class StatsApi {

  private static final Set<String> RECORD = Set.of("key", "value", "values", "at");
  private static final Set<String> RECORD_ITEM = Set.of("key", "value", "values");
  private static final Set<String> RECORD_BATCH = Set.of("records", "at");
  private static final Set<String> SUMMARY = Set.of("key", "quantiles");
  private static final Set<String> SUMMARY_BATCH = Set.of("keys", "quantiles");
  private static final double[] DEFAULT_QUANTILES = {0.5, 0.9, 0.99};
  static final int MAX_QUANTILES = 32;

  private final Service service;

  StatsApi(Service service) {
    this.service = service;
  }

  void register(RoutesConfig routes) {
    routes.get("/v1/stats", this::list);
    routes.get("/v1/stats/{stats}", this::describe);
    routes.post("/v1/stats/{stats}/record", this::record);
    routes.get("/v1/stats/{stats}/summary", this::summary);
    routes.post("/v1/stats/{stats}/record-batch", this::recordBatch);
    routes.post("/v1/stats/{stats}/summary-batch", this::summaryBatch);
    routes.get("/v1/stats/{stats}/top", this::top);
  }

  private void top(Context ctx) {
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    TopKeysApi.Ask ask = TopKeysApi.ask(service, ctx, false);
    TopKeysApi.reply(service, ctx, "stats", stats.name(), ask, stats.top(ask.n()));
  }

  private void list(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    ObjectNode body = Json.object();
    ArrayNode all = body.putArray("stats");
    service.catalog().stats().values().forEach(s -> all.add(Describe.stats(s.name(), s.spec())));
    Replies.json(ctx, 200, body);
  }

  private void describe(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    Replies.json(ctx, 200, Describe.stats(stats.name(), stats.spec()));
  }

  /** One key and its values, checked. */
  private record Values(String key, double[] values) {}

  private Values values(JsonBody body) {
    String key = body.key("key");
    if (body.has("value") == body.has("values")) {
      throw ApiError.invalid(body.path("value"), "give exactly one of "
          + body.path("value") + " and " + body.path("values"));
    }
    double[] values = body.has("value")
        ? new double[] {body.number("value")}
        : body.numbers("values", service.limits().maxBatch());
    return new Values(key, values);
  }

  private void record(Context ctx) {
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    JsonBody request = service.body(ctx, RECORD);
    Values v = values(request);
    Long at = CounterApi.eventTime(request);
    service.backend().call(ctx, "record", () -> at == null ? stats.recordAllAsync(v.key, v.values)
        : stats.recordAllAtAsync(v.key, at, v.values), done -> {
      ObjectNode body = Json.object();
      body.put("stats", stats.name());
      body.put("key", v.key);
      body.put("recorded", v.values.length);
      Replies.json(ctx, 200, body);
    });
  }

  private void recordBatch(Context ctx) {
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    List<Values> records = new ArrayList<>();
    long total = 0;
    JsonBody request = service.body(ctx, RECORD_BATCH);
    Long at = CounterApi.eventTime(request);
    for (JsonBody record : request.objects("records", RECORD_ITEM)) {
      Values v = values(record);
      records.add(v);
      total += v.values.length;
    }
    long recorded = total;
    List<CompletableFuture<Void>> calls = new ArrayList<>(records.size());
    List<String> keys = new ArrayList<>(records.size());
    List<double[]> values = new ArrayList<>(records.size());
    for (Values v : records) {
      keys.add(v.key);
      values.add(v.values);
    }
    service.backend().call(ctx, "record", () -> {
      for (CompletionStage<Void> call : at == null ? stats.recordAllAsync(keys, values)
          : stats.recordAllAsync(keys, values, at)) {
        calls.add(call.toCompletableFuture());
      }
      // every call is awaited, so that the reply can say which records were refused
      return CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0]))
          .handle((all, failure) -> refused(calls));
    }, refused -> {
      if (refused.isEmpty()) {
        ObjectNode body = Json.object();
        body.put("stats", stats.name());
        body.put("recorded", recorded);
        Replies.json(ctx, 200, body);
        return;
      }
      int first = refused.get(0);
      Throwable why = Replies.unwrap(exceptionOf(calls.get(first)));
      if (why instanceof EventTimeException) { // one at for the batch: late or ahead
        service.replies().error(ctx, ApiError.invalid("at", "records " + refusedList(refused)
            + " refused: " + why.getMessage() + "; the other "
            + (records.size() - refused.size()) + " records were recorded"));
        return;
      }
      service.replies().error(ctx, new ApiError(409, "capacity_exceeded",
          "records[" + first + "]", "records " + refusedList(refused) + " refused: "
              + Replies.unwrap(exceptionOf(calls.get(first))).getMessage() + "; the other "
              + (records.size() - refused.size()) + " records were recorded"));
    });
  }

  /**
   * The indexes of the calls refused because an exact window was full. A backend failure of any
   * call fails the whole batch (503): the records were sent together and others may have been
   * recorded.
   */
  private static List<Integer> refused(List<CompletableFuture<Void>> calls) {
    List<Integer> refused = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i).isCompletedExceptionally()) {
        Throwable cause = Replies.unwrap(exceptionOf(calls.get(i)));
        if (!(cause instanceof CapacityExceededException)
            && !(cause instanceof EventTimeException)) {
          throw new WindowpaneException("records[" + i + "] failed and the batch's other "
              + "records were sent with it, so some may have been recorded: "
              + cause.getMessage(), cause);
        }
        refused.add(i);
      }
    }
    return refused;
  }

  private static Throwable exceptionOf(CompletableFuture<Void> call) {
    return call.handle((v, e) -> e).join();
  }

  private static String refusedList(List<Integer> refused) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < refused.size() && i < 10; i++) {
      text.append(i == 0 ? "" : ", ").append(refused.get(i));
    }
    return text.append(refused.size() > 10 ? ", ..." : "").toString();
  }

  private void summary(Context ctx) {
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    String key = service.queryKey(ctx, SUMMARY);
    double[] quantiles = queryQuantiles(ctx.queryParam("quantiles"));
    service.backend().call(ctx, "summary", () -> stats.summaryAsync(key), summary -> {
      ObjectNode body = Json.object();
      body.put("stats", stats.name());
      summary(body, key, summary, quantiles);
      Replies.json(ctx, 200, body);
    });
  }

  private void summaryBatch(Context ctx) {
    WindowStats stats = service.catalog().stats(ctx.pathParam("stats"));
    JsonBody body = service.body(ctx, SUMMARY_BATCH);
    List<String> keys = body.keys("keys");
    double[] quantiles = body.has("quantiles")
        ? checkQuantiles(body.numbers("quantiles", MAX_QUANTILES))
        : DEFAULT_QUANTILES;
    service.backend().call(ctx, "summary", () -> stats.summaryAllAsync(keys), summaries -> {
      ObjectNode reply = Json.object();
      reply.put("stats", stats.name());
      ArrayNode all = reply.putArray("summaries");
      for (int i = 0; i < keys.size(); i++) {
        summary(all.addObject(), keys.get(i), summaries.get(i), quantiles);
      }
      Replies.json(ctx, 200, reply);
    });
  }

  private static void summary(ObjectNode body, String key, Summary s, double[] quantiles) {
    body.put("key", key);
    body.put("count", s.count());
    body.put("sum", s.sum());
    Json.putNumber(body, "mean", s.mean());
    Json.putNumber(body, "min", s.min());
    Json.putNumber(body, "max", s.max());
    ObjectNode q = body.putObject("quantiles");
    for (double quantile : quantiles) {
      Json.putNumber(q, BigDecimal.valueOf(quantile).stripTrailingZeros().toPlainString(),
          s.quantile(quantile));
    }
    body.put("exact", s.isExact());
    body.put("relativeAccuracy", s.isExact() ? 0.0 : s.relativeAccuracy());
  }

  private static double[] queryQuantiles(String text) {
    if (text == null) {
      return DEFAULT_QUANTILES;
    }
    String[] parts = text.split(",", -1);
    if (parts.length > MAX_QUANTILES) {
      throw ApiError.invalid("quantiles", "quantiles must list 1 to " + MAX_QUANTILES
          + " numbers in [0, 1], was " + parts.length);
    }
    double[] quantiles = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        quantiles[i] = Double.parseDouble(parts[i].trim());
      } catch (NumberFormatException e) {
        throw ApiError.invalid("quantiles", "quantiles must be comma-separated numbers in "
            + "[0, 1], was '" + parts[i] + "'");
      }
    }
    return checkQuantiles(quantiles);
  }

  private static double[] checkQuantiles(double[] quantiles) {
    for (double q : quantiles) {
      if (!(q >= 0 && q <= 1)) {
        throw ApiError.invalid("quantiles", "every quantile must be in [0, 1], was " + q);
      }
    }
    return quantiles;
  }
}
