package io.windowpane.bench.etcd;

import io.windowpane.bench.redis.KeySet;
import io.windowpane.bench.redis.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The etcd load generator's command line, validated at once. */
record EtcdOptions(List<Integer> threads, Duration duration, Duration warmup, long limit,
    long windowMillis, int panes, int keys, List<EtcdContenderKind> contenders,
    List<String> scenarios, String endpoint, int naiveAttempts, long naivePauseMicros,
    Duration timeout, boolean smoke, Path out) {

  static final String USAGE = """
      usage: EtcdLoadBenchmark [--smoke] [--threads 16 | 1,16,64] [--duration 8s] [--warmup 2s]
          [--limit L per window per key (1000000000)] [--window 60s] [--panes 60] [--keys 1000]
          [--contenders put,naive-cas,windowpane-etcd] [--scenarios hot,uniform]
          [--naive-attempts 20] [--naive-pause-us 0] [--timeout 5s]
          [--endpoint http://host:port] [--out FILE.json]
      --smoke: 4 threads, 1 s warmup, 2 s measured (later options still apply)
      durations: 10s, 500ms, 2m or plain seconds""";

  static EtcdOptions parse(String[] args) {
    List<Integer> threads = List.of(16);
    Duration duration = Duration.ofSeconds(8);
    Duration warmup = Duration.ofSeconds(2);
    long limit = 1_000_000_000L;
    Duration window = Duration.ofSeconds(60);
    int panes = 60;
    int keys = 1_000;
    List<EtcdContenderKind> contenders = List.of(EtcdContenderKind.values());
    List<String> scenarios = List.of("hot", "uniform");
    String endpoint = null;
    int naiveAttempts = 20;
    long naivePauseMicros = 0;
    Duration timeout = Duration.ofSeconds(5);
    boolean smoke = false;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--smoke")) {
        smoke = true;
        threads = List.of(4);
        warmup = Duration.ofSeconds(1);
        duration = Duration.ofSeconds(2);
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + ": expected a value");
      }
      String value = args[++i];
      switch (name) {
        case "--threads" -> {
          List<Integer> chosen = new ArrayList<>();
          for (String t : value.split(",")) {
            chosen.add((int) Options.number(name, t.trim(), 1, 1024));
          }
          threads = List.copyOf(chosen);
        }
        case "--duration" -> duration = Options.duration(name, value);
        case "--warmup" -> warmup = Options.duration(name, value);
        case "--limit" -> limit = Options.number(name, value, 1, 1L << 40);
        case "--window" -> window = Options.duration(name, value);
        case "--panes" -> panes = (int) Options.number(name, value, 1, 3600);
        case "--keys" -> keys = (int) Options.number(name, value, 1, 1_000_000);
        case "--contenders" -> {
          List<EtcdContenderKind> chosen = new ArrayList<>();
          for (String label : value.split(",")) {
            chosen.add(EtcdContenderKind.of(label.trim()));
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
        case "--naive-attempts" -> naiveAttempts = (int) Options.number(name, value, 1, 10_000);
        case "--naive-pause-us" -> naivePauseMicros = Options.number(name, value, 0, 1_000_000);
        case "--timeout" -> timeout = Options.duration(name, value);
        case "--endpoint" -> {
          if (!value.startsWith("http://") && !value.startsWith("https://")) {
            throw new IllegalArgumentException("--endpoint: expected http:// or https://, got " + value);
          }
          endpoint = value;
        }
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    if (window.toMillis() < 1) {
      throw new IllegalArgumentException("--window: expected at least 1ms, got " + window);
    }
    if (timeout.toMillis() < 1) {
      throw new IllegalArgumentException("--timeout: expected at least 1ms, got " + timeout);
    }
    if (out == null) {
      out = Options.defaultOut("etcd-load");
    }
    return new EtcdOptions(threads, duration, warmup, limit, window.toMillis(), panes, keys,
        contenders, scenarios, endpoint, naiveAttempts, naivePauseMicros, timeout, smoke, out);
  }

  List<KeySet> keySets() {
    return scenarios.stream().map(s -> s.equals("hot") ? KeySet.hotKey() : KeySet.uniform(keys))
        .toList();
  }

  /** The longest this run may take: each measurement plus 30 s for setup and cleanup, plus 60 s. */
  Duration budget() {
    long runs = (long) contenders.size() * scenarios.size() * threads.size();
    return warmup.plus(duration).plusSeconds(30).multipliedBy(runs).plusSeconds(60);
  }

  Map<String, Object> json(String usedEndpoint) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("endpoint", usedEndpoint);
    m.put("ownServer", endpoint == null);
    m.put("smoke", smoke);
    m.put("threads", threads);
    m.put("warmupSeconds", warmup.toMillis() / 1e3);
    m.put("durationSeconds", duration.toMillis() / 1e3);
    m.put("limitPerWindow", limit);
    m.put("windowMillis", windowMillis);
    m.put("panes", panes);
    m.put("keys", keys);
    m.put("scenarios", scenarios);
    m.put("contenders", contenders.stream().map(EtcdContenderKind::label).toList());
    m.put("naiveAttempts", naiveAttempts);
    m.put("naivePauseMicros", naivePauseMicros);
    m.put("timeoutMillis", timeout.toMillis());
    return m;
  }
}
