package io.windowpane.bench.redis;

import io.windowpane.bench.stats.WindowTraffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The statistics load generator's command line, validated at once. */
record StatsOptions(int threads, Duration duration, Duration warmup, Duration timeout,
    List<Scenario> scenarios, List<StatsContenderKind> contenders, List<Integer> panes,
    String redisUri, Path out) {

  /** The window of every scenario: 60 s. */
  static final long WINDOW_MILLIS = 60_000;

  static final String USAGE = """
      usage: StatsLoadBenchmark [--threads N (16)] [--duration 10s] [--warmup 3s] [--timeout 60s]
          [--scenarios KEYSxPOPULATION,... (1x10000,1x1000000,1000x10000)]
          [--contenders windowpane-record,windowpane-request,windowpane-exact-request,raw-zset-append,raw-zset-request]
          [--panes 60[,12]] [--redis-uri redis://host:port] [--out FILE.json]
      durations: 10s, 500ms, 2m or plain seconds""";

  /**
   * {@code keys} keys, each with a 60 s window held at {@code population} values.
   *
   * @param keys how many keys the callers spread their calls over, uniformly at random
   * @param population values per key per window
   */
  record Scenario(int keys, long population) {
    String name() {
      return keys + "x" + population;
    }

    KeySet keySet() {
      String[] names = new String[keys];
      for (int i = 0; i < keys; i++) {
        names[i] = keys == 1 ? "hot" : "k" + i;
      }
      return new KeySet(name(), names);
    }
  }

  static StatsOptions parse(String[] args) {
    int threads = 16;
    Duration duration = Duration.ofSeconds(10);
    Duration warmup = Duration.ofSeconds(3);
    Duration timeout = Duration.ofSeconds(60);
    List<Scenario> scenarios = List.of(new Scenario(1, 10_000), new Scenario(1, 1_000_000),
        new Scenario(1000, 10_000));
    List<StatsContenderKind> contenders = List.of(StatsContenderKind.values());
    List<Integer> panes = List.of(60);
    String redisUri = null;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + ": expected a value");
      }
      String value = args[++i];
      switch (name) {
        case "--threads" -> threads = (int) Options.number(name, value, 1, 256);
        case "--duration" -> duration = Options.duration(name, value);
        case "--warmup" -> warmup = Options.duration(name, value);
        case "--timeout" -> timeout = Options.duration(name, value);
        case "--scenarios" -> {
          List<Scenario> chosen = new ArrayList<>();
          for (String s : value.split(",")) {
            String[] parts = s.trim().split("x");
            if (parts.length != 2) {
              throw new IllegalArgumentException("--scenarios: expected KEYSxPOPULATION such as"
                  + " 1x10000, got " + s);
            }
            Scenario scenario = new Scenario((int) Options.number(name, parts[0], 1, 100_000),
                Options.number(name, parts[1], 1, 10_000_000));
            new WindowTraffic(WINDOW_MILLIS, scenario.population(), scenario.keys()); // checks
            chosen.add(scenario);
          }
          scenarios = List.copyOf(chosen);
        }
        case "--contenders" -> {
          List<StatsContenderKind> chosen = new ArrayList<>();
          for (String label : value.split(",")) {
            chosen.add(StatsContenderKind.of(label));
          }
          contenders = List.copyOf(chosen);
        }
        case "--panes" -> {
          List<Integer> chosen = new ArrayList<>();
          for (String p : value.split(",")) {
            chosen.add((int) Options.number(name, p.trim(), 1, 60_000));
          }
          panes = List.copyOf(chosen);
        }
        case "--redis-uri" -> {
          if (!value.startsWith("redis://")) {
            throw new IllegalArgumentException("--redis-uri: expected redis://, got " + value);
          }
          redisUri = value;
        }
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    if (timeout.toMillis() < 1) {
      throw new IllegalArgumentException("--timeout: expected at least 1ms, got " + timeout);
    }
    if (out == null) {
      out = Options.defaultOut("stats-redis-load");
    }
    return new StatsOptions(threads, duration, warmup, timeout, scenarios, contenders, panes,
        redisUri, out);
  }

  /** The longest the run may take: per measurement its phases, a call's timeout and 3 minutes. */
  Duration budget() {
    long runs = (long) scenarios.size() * contenders.size() * panes.size();
    return warmup.plus(duration).plus(timeout).plusMinutes(3).multipliedBy(runs).plusMinutes(1);
  }

  Map<String, Object> json(String uri) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("redisUri", uri);
    m.put("ownServer", redisUri == null);
    m.put("threads", threads);
    m.put("warmupSeconds", warmup.toMillis() / 1e3);
    m.put("durationSeconds", duration.toMillis() / 1e3);
    m.put("commandTimeoutSeconds", timeout.toMillis() / 1e3);
    m.put("windowMillis", WINDOW_MILLIS);
    m.put("scenarios", scenarios.stream().map(Scenario::name).toList());
    m.put("contenders", contenders.stream().map(StatsContenderKind::label).toList());
    m.put("panes", panes);
    return m;
  }
}
