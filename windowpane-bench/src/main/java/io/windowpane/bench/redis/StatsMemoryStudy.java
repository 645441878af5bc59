package io.windowpane.bench.redis;

import io.windowpane.StatsSpec;
import io.windowpane.bench.stats.LatencyValues;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/*
 * Design note: as MemoryStudy, each (design, population) cell gets a redis-server of its own,
 * so "the keys this design created" is every key on that server. Unlike MemoryStudy no real time
 * is needed: the contenders' ManualClock traffic (WindowTraffic) records two windows of
 * `population` values on one key in batches 60 ms apart, as fast as the server takes them, and the
 * second window is the one measured (steady state: every pane, or every sorted-set member, has
 * been replaced once). Cells run one after the other, so at most one large sorted set exists at
 * a time.
 */

/**
 * Redis memory of one key's statistics window after a 60 s window that saw {@code population}
 * lognormal latencies (default 10,000 and 1,000,000) spread evenly over it, in steady state, for
 * windowpane's histogram window (at each pane count given: default 60 and 12), windowpane's
 * exact window, and the raw sorted set ({@link RawZsetStatsContender}: a member
 * {@code "<value>:<sequence>"} per value, scored by time). Reports every key a design created,
 * with type, encoding, size and {@code MEMORY USAGE key SAMPLES 0} (every element counted).
 *
 * <p>Run: {@code windowpane-bench/run-stats-benchmarks.sh redis-memory}, or
 * <pre>
 * java -cp windowpane-bench/target/benchmarks.jar io.windowpane.bench.redis.StatsMemoryStudy \
 *     [--populations 10000,1000000] [--panes 60,12] [--designs windowpane,windowpane-exact,raw-zset]
 *     [--out FILE.json]
 * </pre>
 * It starts and stops its own servers; the JSON goes to
 * {@code windowpane-bench/results/stats-redis-memory-DATE.json} unless {@code --out} says otherwise.
 */
public final class StatsMemoryStudy {

  private static final long WINDOW_MILLIS = 60_000;
  private static final int WINDOWS = 2;

  private StatsMemoryStudy() {}

  public static void main(String[] args) throws Exception {
    java.util.logging.Logger.getLogger("io.lettuce").setLevel(java.util.logging.Level.WARNING);
    List<Long> populations = List.of(10_000L, 1_000_000L);
    List<Integer> panes = List.of(60, 12);
    List<String> designs = List.of("windowpane", "windowpane-exact", "raw-zset");
    Path out = Path.of("windowpane-bench", "results", "stats-redis-memory-"
        + LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + ".json");
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("usage: StatsMemoryStudy [--populations 10000,1000000]"
          + " [--panes 60,12] [--designs windowpane,windowpane-exact,raw-zset] [--out FILE.json]");
    }
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--populations" -> populations = List.of(value.split(",")).stream()
            .map(s -> Long.parseLong(s.trim())).toList();
        case "--panes" -> panes = List.of(value.split(",")).stream()
            .map(s -> Integer.parseInt(s.trim())).toList();
        case "--designs" -> designs = List.of(value.split(",")).stream().map(String::trim).toList();
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(Duration.ofMinutes(20).toMillis());
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("watchdog: the study overstayed its 20 minutes; exiting");
      System.exit(3); // shutdown hooks stop the servers
    }, "watchdog");
    watchdog.setDaemon(true);
    watchdog.start();

    System.out.printf(Locale.ROOT, "one key's window of %d s after %d windows of N lognormal"
            + " latencies per window (median %.0f ms, sigma %.1f), spread evenly;%n"
            + "bytes: MEMORY USAGE key SAMPLES 0, summed over every key of the cell's own"
            + " server%n", WINDOW_MILLIS / 1000, WINDOWS, LatencyValues.MEDIAN_MILLIS,
        LatencyValues.SIGMA);
    System.out.printf(Locale.ROOT, "%-18s %10s %10s %12s %11s %8s  %s%n", "design", "N",
        "in window", "bytes", "bytes/value", "fill s", "keys (type, encoding, size)");
    List<Map<String, Object>> rows = new ArrayList<>();
    String version = "unknown";
    for (long population : populations) {
      for (String design : designs) {
        if (design.equals("windowpane")) {
          for (int p : panes) {
            rows.add(cell(design + "-p" + p, StatsContenderKind.WINDOWPANE_RECORD, p, population));
          }
        } else if (design.equals("windowpane-exact")) {
          if (population > StatsSpec.MAX_VALUES) {
            System.out.printf(Locale.ROOT, "%-18s %,10d  skipped: an exact window holds at most"
                + " %,d values%n", design, population, StatsSpec.MAX_VALUES);
            continue;
          }
          rows.add(cell(design, StatsContenderKind.WINDOWPANE_EXACT_REQUEST, 0, population));
        } else if (design.equals("raw-zset")) {
          rows.add(cell(design, StatsContenderKind.RAW_ZSET_APPEND, 0, population));
        } else {
          throw new IllegalArgumentException("design: expected windowpane, windowpane-exact or"
              + " raw-zset, got " + design);
        }
        if (!rows.isEmpty() && rows.get(rows.size() - 1).get("redisVersion") != null) {
          version = (String) rows.get(rows.size() - 1).get("redisVersion");
        }
      }
    }

    Map<String, Object> file = new LinkedHashMap<>();
    file.put("benchmark", "StatsMemoryStudy");
    file.put("machine", Machine.describe(version, args));
    file.put("windowMillis", WINDOW_MILLIS);
    file.put("windowsFed", WINDOWS);
    file.put("results", rows);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.write(file));
    System.out.println("wrote " + out);
    System.exit(0);
  }

  private static Map<String, Object> cell(String design, StatsContenderKind kind, int panes,
      long population) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("design", design);
    row.put("population", population);
    row.put("panes", panes == 0 ? null : panes);
    try (RedisServer server = RedisServer.start()) {
      StatsSettings settings = new StatsSettings(server.uri(), WINDOW_MILLIS, Math.max(1, panes),
          population, WINDOWS, "mem", Duration.ofSeconds(60));
      long start = System.nanoTime();
      StatsContender contender;
      try {
        contender = kind.create(settings);
      } catch (RuntimeException | LinkageError e) {
        System.out.printf(Locale.ROOT, "%-18s %,10d  unavailable: %s%n", design, population, e);
        row.put("failure", e.toString());
        return row;
      }
      long held;
      try {
        contender.prepare(new String[] {"merchant:7"});
        held = contender.population(0);
      } catch (Exception e) {
        System.out.printf(Locale.ROOT, "%-18s %,10d  failed: %s%n", design, population, e);
        row.put("failure", e.toString());
        return row;
      } finally {
        contender.close();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      List<Map<String, Object>> keys = new ArrayList<>();
      long bytes = 0;
      StringBuilder layout = new StringBuilder();
      try (RespClient client = server.client()) {
        for (String key : MemoryStudy.scan(client)) {
          Map<String, Object> k = MemoryStudy.describe(client, key);
          bytes += (Long) k.get("bytes");
          keys.add(k);
          layout.append(String.format(Locale.ROOT, "%s (%s, %s, %,d %s, %,d B)  ", k.get("key"),
              k.get("type"), k.get("encoding"), ((Number) k.get("size")).longValue(),
              k.get("sizeOf"), k.get("bytes")));
        }
        row.put("redisVersion", ServerStats.parseInfo((String) client.command("INFO", "server"))
            .getOrDefault("redis_version", "unknown"));
      }
      System.out.printf(Locale.ROOT, "%-18s %,10d %,10d %,12d %11.1f %8.1f  %s%n", design,
          population, held, bytes, bytes / (double) population, seconds, layout.toString().trim());
      row.put("valuesInWindow", held);
      row.put("bytes", bytes);
      row.put("bytesPerValue", bytes / (double) population);
      row.put("fillSeconds", seconds);
      row.put("keys", keys);
    }
    return row;
  }
}
