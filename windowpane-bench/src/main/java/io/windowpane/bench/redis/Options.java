package io.windowpane.bench.redis;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The load generator's command line, validated at once. */
public record Options(int threads, Duration duration, Duration warmup, long limit, long windowMillis,
    int keys, List<ContenderKind> contenders, List<String> scenarios, String redisUri, Path out) {

  static final String USAGE = """
      usage: RedisLoadBenchmark [--threads N (16)] [--duration 10s] [--warmup 3s]
          [--limit L per window per key (1000000)] [--window 1s] [--keys K (10000)]
          [--contenders incr,zset-lua,lock-zset,bucket4j,redisson,windowpane-panes,windowpane-weighted,windowpane-log]
          [--scenarios hot,uniform] [--redis-uri redis://host:port] [--out FILE.json]
      durations: 10s, 500ms, 2m or plain seconds""";

  static Options parse(String[] args) {
    int threads = 16;
    Duration duration = Duration.ofSeconds(10);
    Duration warmup = Duration.ofSeconds(3);
    long limit = 1_000_000;
    Duration window = Duration.ofSeconds(1);
    int keys = 10_000;
    List<ContenderKind> contenders = List.of(ContenderKind.values());
    List<String> scenarios = List.of("hot", "uniform");
    String redisUri = null;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + ": expected a value");
      }
      String value = args[++i];
      switch (name) {
        case "--threads" -> threads = (int) positive(name, value, 1024);
        case "--duration" -> duration = duration(name, value);
        case "--warmup" -> warmup = duration(name, value);
        case "--limit" -> limit = positive(name, value, 1L << 40);
        case "--window" -> window = duration(name, value);
        case "--keys" -> keys = (int) positive(name, value, 10_000_000);
        case "--contenders" -> {
          List<ContenderKind> chosen = new ArrayList<>();
          for (String label : value.split(",")) {
            chosen.add(ContenderKind.of(label.trim()));
          }
          contenders = List.copyOf(chosen);
        }
        case "--scenarios" -> {
          scenarios = Arrays.stream(value.split(",")).map(String::trim).toList();
          for (String s : scenarios) {
            if (!s.equals("hot") && !s.equals("uniform")) {
              throw new IllegalArgumentException("--scenarios: expected hot and/or uniform, got " + s);
            }
          }
        }
        case "--redis-uri" -> {
          if (!value.startsWith("redis://") && !value.startsWith("rediss://")) {
            throw new IllegalArgumentException("--redis-uri: expected redis:// or rediss://, got " + value);
          }
          redisUri = value;
        }
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    if (window.toMillis() < 1) {
      throw new IllegalArgumentException("--window: expected at least 1ms, got " + window);
    }
    if (out == null) {
      out = defaultOut("redis-load");
    }
    return new Options(threads, duration, warmup, limit, window.toMillis(), keys, contenders,
        scenarios, redisUri, out);
  }

  List<KeySet> keySets() {
    return scenarios.stream().map(s -> s.equals("hot") ? KeySet.hotKey() : KeySet.uniform(keys))
        .toList();
  }

  /** The longest this run may take: each measurement, plus a minute each for setup and close. */
  Duration budget() {
    long runs = (long) contenders.size() * scenarios.size();
    return warmup.plus(duration).plusSeconds(60).multipliedBy(runs).plusSeconds(60);
  }

  Map<String, Object> json(String uri) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("redisUri", uri);
    m.put("ownServer", redisUri == null);
    m.put("threads", threads);
    m.put("warmupSeconds", warmup.toMillis() / 1e3);
    m.put("durationSeconds", duration.toMillis() / 1e3);
    m.put("limitPerWindow", limit);
    m.put("windowMillis", windowMillis);
    m.put("keys", keys);
    m.put("windowpanePanes", RedisLoadBenchmark.PANES);
    m.put("scenarios", scenarios);
    m.put("contenders", contenders.stream().map(ContenderKind::label).toList());
    m.put("lettuceCommandTimeoutMillis", LettuceClients.COMMAND_TIMEOUT.toMillis());
    Map<String, Object> lock = new LinkedHashMap<>();
    lock.put("lockTtlMillis", LockZsetContender.LOCK_TTL_MILLIS);
    lock.put("backoffBaseMicros", LockZsetContender.BACKOFF_BASE_MICROS);
    lock.put("backoffCapMicros", LockZsetContender.BACKOFF_CAP_MICROS);
    lock.put("deadlineMillis", LockZsetContender.DEADLINE_MILLIS);
    m.put("lockZset", lock);
    return m;
  }

  private static long positive(String name, String value, long max) {
    return number(name, value, 1, max);
  }

  /** An integer option in {@code [min, max]}; {@code _} and {@code ,} may group digits. */
  public static long number(String name, String value, long min, long max) {
    try {
      long n = Long.parseLong(value.replace("_", "").replace(",", ""));
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + ": expected " + min + " to " + max + ", got "
        + value);
  }

  /** The default results file: {@code windowpane-bench/results/<prefix>-<UTC time>.json}. */
  public static Path defaultOut(String prefix) {
    return Path.of("windowpane-bench", "results", prefix + "-"
        + LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + ".json");
  }

  /** {@code 10s}, {@code 500ms}, {@code 2m}, or a plain number of seconds. */
  public static Duration duration(String name, String value) {
    try {
      Duration d;
      if (value.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
      } else if (value.endsWith("s")) {
        d = Duration.ofMillis(Math.round(Double.parseDouble(value.substring(0, value.length() - 1)) * 1000));
      } else if (value.endsWith("m")) {
        d = Duration.ofSeconds(60 * Long.parseLong(value.substring(0, value.length() - 1)));
      } else {
        d = Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
      }
      if (!d.isNegative() && d.compareTo(Duration.ofHours(1)) <= 0) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + ": expected a duration from 0 to 1h such as 10s,"
        + " 500ms or 2m, got " + value);
  }
}
