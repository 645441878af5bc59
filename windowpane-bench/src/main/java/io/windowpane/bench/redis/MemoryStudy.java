package io.windowpane.bench.redis;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/*
 * Design note: each (design, limit) cell gets a redis-server of its own, so "the keys this design
 * created" is simply every key on that server (SCAN MATCH *), with nothing to filter. All cells
 * are fed at once, in real time, by one thread each: windowpane's engine reads the server's clock,
 * so the only way to spread events over a 60 s window is to take 60 s. Events arrive evenly at
 * n per window (event i at start + i * W / n) for a number of windows (default 2): the first fills
 * the window, the last is the one measured, in steady state. (Measured after the first window
 * alone, a limit below n would show the exact logs nearly empty: their allowed events all came in
 * the window's first L/n and have expired by its end.) Right after the last event every server's
 * keys are sized with MEMORY USAGE key SAMPLES 0 (every element counted, not sampled).
 */

/**
 * Memory of one key's state after a window of {@code W} (default 60 s) that saw {@code n} events
 * (default 10,000) spread evenly over it, the traffic having run at that rate for a window before
 * (so the state is in steady state), for each Redis design: the articles' lock-guarded sorted
 * set ({@code lock-zset}: one member per event, rejected ones included), the plain Lua sorted set
 * ({@code zset-lua}: one member per allowed event), and windowpane's panes, weighted and log
 * layouts; at each limit given (default 20,000, twice the events per window, so every event is
 * allowed even where the feeder's timing jitters, and 1,000, where 90% are denied). Reports, per
 * cell, the allowed/denied counts, the keys the design created with their type, encoding and
 * size, and the sum of their {@code MEMORY USAGE ... SAMPLES 0}.
 *
 * <p>Run: {@code java -cp windowpane-bench/target/benchmarks.jar
 * io.windowpane.bench.redis.MemoryStudy [--window 60s] [--events 10000] [--windows 2]
 * [--limits 20000,1000] [--panes 60]
 * [--designs lock-zset,zset-lua,windowpane-panes,windowpane-weighted,windowpane-log]
 * [--out FILE.json]}. It takes {@code windows} windows (2 minutes by default) and starts and stops
 * its own servers.
 */
public final class MemoryStudy {

  private MemoryStudy() {}

  /** One design at one limit, on its own server. */
  private record Cell(ContenderKind kind, long limit, RedisServer server, Contender contender,
      long[] outcomes, String[] failure) {}

  public static void main(String[] args) throws Exception {
    java.util.logging.Logger.getLogger("io.lettuce").setLevel(java.util.logging.Level.WARNING);
    Duration window = Duration.ofSeconds(60);
    int events = 10_000;
    List<Long> limits = List.of(20_000L, 1_000L);
    int panes = 60;
    int windows = 2;
    List<ContenderKind> designs = List.of(ContenderKind.LOCK_ZSET, ContenderKind.ZSET_LUA,
        ContenderKind.WINDOWPANE_PANES, ContenderKind.WINDOWPANE_WEIGHTED,
        ContenderKind.WINDOWPANE_LOG);
    Path out = Path.of("windowpane-bench", "results", "redis-memory-"
        + LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + ".json");
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--window" -> window = Options.duration("--window", value);
        case "--events" -> events = Integer.parseInt(value);
        case "--limits" -> limits = List.of(value.split(",")).stream().map(Long::parseLong).toList();
        case "--panes" -> panes = Integer.parseInt(value);
        case "--windows" -> windows = Integer.parseInt(value);
        case "--designs" -> designs = List.of(value.split(",")).stream().map(ContenderKind::of).toList();
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (args.length % 2 != 0 || events < 1 || window.toMillis() < 1 || windows < 1
        || windows > 10) {
      throw new IllegalArgumentException("usage: MemoryStudy [--window 60s] [--events 10000]"
          + " [--windows 1..10 (2)] [--limits 20000,1000] [--panes 60] [--designs ...]"
          + " [--out FILE.json]");
    }
    Duration budget = window.multipliedBy(windows).plusMinutes(3);
    Thread watchdog = new Thread(() -> {
      LockSupport.parkNanos(budget.toNanos());
      System.err.println("watchdog: the study overstayed its budget; exiting");
      System.exit(3); // shutdown hooks stop the servers
    }, "watchdog");
    watchdog.setDaemon(true);
    long budgetStart = System.nanoTime();

    List<Cell> cells = new ArrayList<>();
    try {
      for (long limit : limits) {
        for (ContenderKind kind : designs) {
          cells.add(open(kind, limit, window.toMillis(), panes));
        }
      }
      watchdog.start(); // servers are up; the rest is bounded by the window
      feed(cells, events, windows, window);
      List<Map<String, Object>> json = report(cells, events, windows, window, panes);
      Map<String, Object> file = new LinkedHashMap<>();
      file.put("benchmark", "MemoryStudy");
      file.put("machine", Machine.describe(version(cells), args));
      file.put("windowMillis", window.toMillis());
      file.put("eventsPerWindow", events);
      file.put("windowsFed", windows);
      file.put("panes", panes);
      file.put("results", json);
      if (out.getParent() != null) {
        Files.createDirectories(out.getParent());
      }
      Files.writeString(out, Json.write(file));
      System.out.printf("wrote %s (%.0f s)%n", out, (System.nanoTime() - budgetStart) / 1e9);
    } finally {
      for (Cell c : cells) {
        if (c.contender() != null) {
          c.contender().close();
        }
        c.server().close();
      }
    }
    System.exit(0);
  }

  private static Cell open(ContenderKind kind, long limit, long windowMillis, int panes) {
    RedisServer server = RedisServer.start();
    Contender contender = null;
    String[] failure = new String[1];
    try {
      contender = kind.create(new Settings(server.uri(), limit, windowMillis, panes, "mem:"));
      contender.prepare(new String[] {"k"});
    } catch (RuntimeException | LinkageError e) {
      failure[0] = e.toString();
      System.out.println("  skip " + kind.label() + ": " + e);
      if (contender != null) {
        contender.close();
        contender = null;
      }
    }
    return new Cell(kind, limit, server, contender, new long[Outcome.values().length + 1], failure);
  }

  /** Sends event i of every cell at start + i * window / events; one thread per cell. */
  private static void feed(List<Cell> cells, int eventsPerWindow, int windows, Duration window)
      throws InterruptedException {
    int events = eventsPerWindow * windows;
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
    double spacingNanos = window.toNanos() / (double) eventsPerWindow;
    List<Thread> feeders = new ArrayList<>();
    for (Cell cell : cells) {
      if (cell.contender() == null) {
        continue;
      }
      Thread t = new Thread(() -> {
        for (int i = 0; i < events; i++) {
          long due = start + (long) (i * spacingNanos);
          for (long wait; (wait = due - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(wait);
          }
          try {
            cell.outcomes()[cell.contender().decide(0).ordinal()]++;
          } catch (Exception e) {
            cell.outcomes()[Outcome.values().length]++; // errors
            if (cell.failure()[0] == null) {
              cell.failure()[0] = e.toString();
            }
          }
        }
      }, "feed-" + cell.kind().label() + "-" + cell.limit());
      t.setDaemon(true);
      feeders.add(t);
      t.start();
    }
    System.out.printf("feeding %,d events over %s to %d cells...%n", events,
        window.multipliedBy(windows), feeders.size());
    for (Thread t : feeders) {
      t.join(window.multipliedBy(windows).plusSeconds(30).toMillis());
    }
  }

  private static List<Map<String, Object>> report(List<Cell> cells, int events, int windows,
      Duration window, int panes) {
    System.out.printf(Locale.ROOT, "%nwindow %s that saw %,d events on one key, spread evenly"
        + " (the same rate for %d window%s in all); windowpane-panes: %d panes;%n"
        + "bytes: MEMORY USAGE key SAMPLES 0, summed over SCAN MATCH * right after the last"
        + " event; allowed/denied over all windows%n",
        window, events, windows, windows == 1 ? "" : "s", panes);
    System.out.printf(Locale.ROOT, "%-8s %-20s %8s %8s %7s %5s %10s %10s  %s%n", "limit",
        "design", "allowed", "denied", "errors", "keys", "bytes", "bytes/evt", "keys (type, encoding, size)");
    List<Map<String, Object>> json = new ArrayList<>();
    for (Cell cell : cells) {
      long allowed = cell.outcomes()[Outcome.ALLOWED.ordinal()];
      long denied = cell.outcomes()[Outcome.DENIED.ordinal()];
      long errors = cell.outcomes()[Outcome.values().length];
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("design", cell.kind().label());
      m.put("limit", cell.limit());
      m.put("allowed", allowed);
      m.put("denied", denied);
      m.put("gaveUp", cell.outcomes()[Outcome.GAVE_UP.ordinal()]);
      m.put("errors", errors);
      m.put("failure", cell.failure()[0]);
      if (cell.contender() == null) {
        System.out.printf(Locale.ROOT, "%-8d %-20s unavailable: %s%n", cell.limit(),
            cell.kind().label(), cell.failure()[0]);
        json.add(m);
        continue;
      }
      List<Map<String, Object>> keys = new ArrayList<>();
      long bytes = 0;
      try (RespClient client = cell.server().client()) {
        for (String key : scan(client)) {
          Map<String, Object> k = describe(client, key);
          bytes += (Long) k.get("bytes");
          keys.add(k);
        }
      }
      m.put("bytes", bytes);
      m.put("keys", keys);
      json.add(m);
      StringBuilder layout = new StringBuilder();
      for (Map<String, Object> k : keys) {
        layout.append(String.format(Locale.ROOT, "%s (%s, %s, %s %s, %,d B)  ", k.get("key"),
            k.get("type"), k.get("encoding"), k.get("size"), k.get("sizeOf"), k.get("bytes")));
      }
      System.out.printf(Locale.ROOT, "%-8d %-20s %,8d %,8d %,7d %5d %,10d %10.1f  %s%n",
          cell.limit(), cell.kind().label(), allowed, denied, errors, keys.size(), bytes,
          bytes / (double) events, layout.toString().trim());
      if (errors > 0) {
        System.out.printf("%-8s %-20s first error: %s%n", "", "", cell.failure()[0]);
      }
    }
    return json;
  }

  /** Every key on the server. */
  static List<String> scan(RespClient client) {
    List<String> keys = new ArrayList<>();
    String cursor = "0";
    do {
      List<?> reply = (List<?>) client.command("SCAN", cursor, "MATCH", "*", "COUNT", "1000");
      cursor = (String) reply.get(0);
      for (Object key : (List<?>) reply.get(1)) {
        keys.add((String) key);
      }
    } while (!cursor.equals("0"));
    keys.sort(null);
    return keys;
  }

  /** A key's type, encoding, element count and {@code MEMORY USAGE ... SAMPLES 0}. */
  static Map<String, Object> describe(RespClient client, String key) {
    Map<String, Object> k = new LinkedHashMap<>();
    String type = (String) client.command("TYPE", key);
    k.put("key", key);
    k.put("type", type);
    k.put("encoding", client.command("OBJECT", "ENCODING", key));
    switch (type) {
      case "zset" -> size(k, client.command("ZCARD", key), "members");
      case "hash" -> size(k, client.command("HLEN", key), "fields");
      case "string" -> size(k, client.command("STRLEN", key), "bytes");
      case "list" -> size(k, client.command("LLEN", key), "elements");
      case "set" -> size(k, client.command("SCARD", key), "members");
      default -> size(k, -1L, "?");
    }
    Object bytes = client.command("MEMORY", "USAGE", key, "SAMPLES", "0");
    k.put("bytes", bytes == null ? 0L : (Long) bytes); // null: expired between SCAN and now
    k.put("pttlMillis", client.command("PTTL", key));
    return k;
  }

  private static void size(Map<String, Object> k, Object size, String of) {
    k.put("size", size);
    k.put("sizeOf", of);
  }

  private static String version(List<Cell> cells) {
    if (cells.isEmpty()) {
      return "unknown";
    }
    try (RespClient client = cells.get(0).server().client()) {
      String info = (String) client.command("INFO", "server");
      for (String line : info.split("\r\n")) {
        if (line.startsWith("redis_version:")) {
          return line.substring("redis_version:".length());
        }
      }
    }
    return "unknown";
  }
}
