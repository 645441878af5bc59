package io.windowpane.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.windowpane.WindowCounter;
import java.util.List;
import java.util.Set;

/** {@code /v1/counters}: add, count, their batch forms, and the descriptions. */
final class CounterApi {

  private static final Set<String> ADD = Set.of("key", "n", "at");
  private static final Set<String> ADD_BATCH = Set.of("keys", "n", "at");
  private static final Set<String> COUNT = Set.of("key");
  private static final Set<String> COUNT_BATCH = Set.of("keys");

  private final Service service;

  CounterApi(Service service) {
    this.service = service;
  }

  void register(RoutesConfig routes) {
    routes.get("/v1/counters", this::list);
    routes.get("/v1/counters/{counter}", this::describe);
    routes.post("/v1/counters/{counter}/add", this::add);
    routes.get("/v1/counters/{counter}/count", this::count);
    routes.post("/v1/counters/{counter}/add-batch", this::addBatch);
    routes.post("/v1/counters/{counter}/count-batch", this::countBatch);
    routes.get("/v1/counters/{counter}/top", this::top);
  }

  private void top(Context ctx) {
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    TopKeysApi.Ask ask = TopKeysApi.ask(service, ctx, false);
    TopKeysApi.reply(service, ctx, "counter", counter.name(), ask, counter.top(ask.n()));
  }

  private void list(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    ObjectNode body = Json.object();
    ArrayNode all = body.putArray("counters");
    service.catalog().counters().values()
        .forEach(c -> all.add(Describe.counter(c.name(), c.spec())));
    Replies.json(ctx, 200, body);
  }

  private void describe(Context ctx) {
    service.onlyQuery(ctx, Set.of());
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    Replies.json(ctx, 200, Describe.counter(counter.name(), counter.spec()));
  }

  private void add(Context ctx) {
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    JsonBody body = service.body(ctx, ADD);
    String key = body.key("key");
    long n = body.integer("n", 1, WindowCounter.MAX_ADD, 1);
    Long at = eventTime(body);
    service.backend().call(ctx, "add",
        () -> at == null ? counter.addAsync(key, n) : counter.addAsync(key, n, at),
        count -> Replies.json(ctx, 200, one(counter, key, count)));
  }

  private void count(Context ctx) {
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    String key = service.queryKey(ctx, COUNT);
    service.backend().call(ctx, "count", () -> counter.countAsync(key),
        count -> Replies.json(ctx, 200, one(counter, key, count)));
  }

  private void addBatch(Context ctx) {
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    JsonBody body = service.body(ctx, ADD_BATCH);
    List<String> keys = body.keys("keys");
    long n = body.integer("n", 1, WindowCounter.MAX_ADD, 1);
    Long at = eventTime(body);
    service.backend().call(ctx, "add",
        () -> at == null ? counter.addAllAsync(keys, n) : counter.addAllAsync(keys, n, at),
        counts -> Replies.json(ctx, 200, many(counter, keys, counts)));
  }

  private void countBatch(Context ctx) {
    WindowCounter counter = service.catalog().counter(ctx.pathParam("counter"));
    List<String> keys = service.body(ctx, COUNT_BATCH).keys("keys");
    service.backend().call(ctx, "count", () -> counter.countAllAsync(keys),
        counts -> Replies.json(ctx, 200, many(counter, keys, counts)));
  }

  /**
   * The optional {@code at}: the events' own time, epoch ms (event time; late or too far ahead
   * is a 400 naming {@code at}); null when absent.
   */
  static Long eventTime(JsonBody body) {
    return body.has("at") ? body.integer("at", Long.MIN_VALUE, Long.MAX_VALUE, 0) : null;
  }

  private static ObjectNode one(WindowCounter counter, String key, long count) {
    ObjectNode body = Json.object();
    body.put("counter", counter.name());
    body.put("key", key);
    body.put("count", count);
    return body;
  }

  private static ObjectNode many(WindowCounter counter, List<String> keys, List<Long> counts) {
    ObjectNode body = Json.object();
    body.put("counter", counter.name());
    ArrayNode all = body.putArray("counts");
    for (int i = 0; i < keys.size(); i++) {
      ObjectNode one = all.addObject();
      one.put("key", keys.get(i));
      one.put("count", counts.get(i));
    }
    return body;
  }
}
