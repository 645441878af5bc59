package io.windowpane.bench.stats;

import io.windowpane.ManualClock;
import io.windowpane.StatsSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import io.windowpane.bench.redis.Json;
import io.windowpane.bench.redis.Machine;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
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
 * Design note: bytes per key by heap delta. For each (design, population) cell: full GCs, the
 * heap in use; then one fresh window of that design gets K keys, each fed `windows` windows of
 * the traffic of WindowTraffic (population values per key per 60 s, in batches 60 ms to 1 s
 * apart on a ManualClock), so what is measured is the steady state, not a first window; full GCs again,
 * the heap in use; (after - before) / K. K is large enough that the delta is far above the
 * heap's own noise (a few KB): up to 256 keys, fewer where a key is large (8 raw arrays of
 * 1,000,000 values are already 128 MB). Everything a key costs is included: the engine's map
 * entry, key string and per-key objects as well as the values, histogram panes or ring. The JVM
 * flags matter (compressed references, the default on heaps below 32 GB, and object alignment
 * 8), and so does the collector: G1 counts an array larger than half a region (1 MB with a 4 GB
 * heap) as whole regions, so a raw array of 1,000,000 values "uses" about 25 % more under G1
 * than its bytes. The runner script uses the parallel collector, which counts bytes, and the
 * output names the collector.
 */

/**
 * Heap bytes per key of a 60 s statistics window that saw {@code population} lognormal
 * latencies per window (10,000 and 1,000,000 by default), for windowpane's histogram window at
 * 60 and at 12 panes, windowpane's exact window and the raw array ({@link RawArrayStats}),
 * measured as the heap delta over many keys after full GCs.
 *
 * <p>Run (as the runner script does):
 * <pre>
 * java -XX:+UseParallelGC -Xms4g -Xmx4g -cp windowpane-bench/target/benchmarks.jar \
 *     io.windowpane.bench.stats.LocalStatsMemory [--populations 10000,1000000] [--windows 2]
 *     [--designs histogram-60,histogram-12,exact,raw-array] [--out FILE.json]
 * </pre>
 * It prints a table and writes it as JSON ({@code windowpane-bench/results/stats-local-memory-DATE.json}
 * unless {@code --out} says otherwise).
 */
public final class LocalStatsMemory {

  private static final long WINDOW_MILLIS = 60_000;

  /** Values a histogram cell records at most (bounds its time: about 50 ns each). */
  private static final long HISTOGRAM_VALUES = 64_000_000;

  /** Values a raw or exact cell holds at most (bounds its heap: 16 to 56 bytes each). */
  private static final long RAW_VALUES = 8_000_000;

  private LocalStatsMemory() {}

  public static void main(String[] args) throws Exception {
    List<Long> populations = List.of(10_000L, 1_000_000L);
    List<String> designs = List.of("histogram-60", "histogram-12", "exact", "raw-array");
    int windows = 2;
    Path out = Path.of("windowpane-bench", "results", "stats-local-memory-"
        + LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + ".json");
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("usage: LocalStatsMemory [--populations 10000,1000000]"
          + " [--windows 2] [--designs histogram-60,histogram-12,exact,raw-array] [--out FILE]");
    }
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--populations" -> populations = List.of(value.split(",")).stream()
            .map(s -> Long.parseLong(s.trim())).toList();
        case "--windows" -> windows = Integer.parseInt(value);
        case "--designs" -> designs = List.of(value.split(",")).stream().map(String::trim).toList();
        case "--out" -> out = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }

    System.out.printf(Locale.ROOT, "heap bytes per key of a %d s window that saw N lognormal"
            + " latencies per window (median %.0f ms, sigma %.1f), fed for %d windows;%n"
            + "heap delta after full GCs over K keys; %s, collectors %s, max heap %,d MB%n",
        WINDOW_MILLIS / 1000, LatencyValues.MEDIAN_MILLIS, LatencyValues.SIGMA, windows,
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
        collectors(), Runtime.getRuntime().maxMemory() >> 20);
    System.out.printf(Locale.ROOT, "%-14s %10s %6s %14s %12s %10s  %s%n", "design", "N", "K",
        "bytes/key", "bytes/value", "seconds", "detail");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (long population : populations) {
      for (String design : designs) {
        if (design.equals("exact") && population > StatsSpec.MAX_VALUES) {
          System.out.printf(Locale.ROOT, "%-14s %,10d  skipped: an exact window holds at most"
              + " %,d values%n", design, population, StatsSpec.MAX_VALUES);
          continue;
        }
        rows.add(measure(design, population, windows));
      }
    }

    Map<String, Object> file = new LinkedHashMap<>();
    file.put("benchmark", "LocalStatsMemory");
    file.put("machine", Machine.describe("none", args));
    file.put("collectors", collectors());
    file.put("windowMillis", WINDOW_MILLIS);
    file.put("windowsFed", windows);
    file.put("values", "lognormal, median " + LatencyValues.MEDIAN_MILLIS + " ms, sigma "
        + LatencyValues.SIGMA + ", rounded to 0.001");
    file.put("results", rows);
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.write(file));
    System.out.println("wrote " + out);
  }

  private static Map<String, Object> measure(String design, long population, int windows)
      throws Exception {
    boolean histogram = design.startsWith("histogram-");
    int keys = (int) Math.max(4, Math.min(256,
        (histogram ? HISTOGRAM_VALUES : RAW_VALUES) / population));
    WindowTraffic traffic = new WindowTraffic(WINDOW_MILLIS, population, keys);
    String[] names = new String[keys];
    for (int k = 0; k < keys; k++) {
      names[k] = "merchant:" + k;
    }
    LatencyValues values = LatencyValues.seeded(7);
    ManualClock clock = ManualClock.at(WindowTraffic.START_MILLIS);

    long before = heapAfterGc();
    long start = System.nanoTime();
    Windowpane wp = null;
    WindowStats stats = null;
    RawArrayStats raw = null;
    if (design.equals("raw-array")) {
      raw = new RawArrayStats(clock, WINDOW_MILLIS);
    } else {
      wp = Windowpane.localBuilder().clock(clock).build();
      StatsSpec spec = histogram
          ? StatsSpec.histogram(Duration.ofMillis(WINDOW_MILLIS),
              Integer.parseInt(design.substring("histogram-".length())))
          : design.equals("exact")
              ? StatsSpec.exact(Duration.ofMillis(WINDOW_MILLIS)).withMaxValues(StatsSpec.MAX_VALUES)
              : null;
      if (spec == null) {
        throw new IllegalArgumentException("design: expected histogram-P, exact or raw-array,"
            + " got " + design);
      }
      stats = wp.stats("bench", spec);
    }
    RawArrayStats rawFinal = raw;
    WindowStats statsFinal = stats;
    traffic.prefill(clock, windows, WindowTraffic.prefillBatches(keys), values, (key, time, batch) -> {
      if (rawFinal != null) {
        for (double v : batch) {
          rawFinal.record(names[key], v);
        }
      } else {
        statsFinal.recordAll(names[key], batch);
      }
    });
    double seconds = (System.nanoTime() - start) / 1e9;
    long after = heapAfterGc();

    long count = raw != null ? raw.count(names[0]) : stats.summary(names[0]).count();
    String detail;
    Map<String, Object> row = new LinkedHashMap<>();
    if (raw != null) {
      int capacity = raw.capacity(names[0]);
      detail = String.format(Locale.ROOT, "key 0: %,d values, ring of %,d slots (16 B each: %,d B)",
          count, capacity, 16L * capacity);
      row.put("ringSlots", capacity);
    } else if (histogram) {
      int buckets = stats.summary(names[0]).histogram().orElseThrow().keys().length;
      detail = String.format(Locale.ROOT, "key 0: %,d values in %,d occupied buckets (merged"
          + " over the window)", count, buckets);
      row.put("occupiedBucketsKey0", buckets);
    } else {
      detail = String.format(Locale.ROOT, "key 0: %,d values", count);
    }
    double bytesPerKey = (after - before) / (double) keys;
    System.out.printf(Locale.ROOT, "%-14s %,10d %6d %,14.0f %12.1f %10.1f  %s%n", design,
        population, keys, bytesPerKey, bytesPerKey / population, seconds, detail);
    Reference.reachabilityFence(raw);
    Reference.reachabilityFence(stats);
    if (wp != null) {
      wp.close();
    }

    row.put("design", design);
    row.put("population", population);
    row.put("keys", keys);
    row.put("heapBefore", before);
    row.put("heapAfter", after);
    row.put("bytesPerKey", bytesPerKey);
    row.put("bytesPerValue", bytesPerKey / population);
    row.put("valuesInWindowKey0", count);
    row.put("fillSeconds", seconds);
    return row;
  }

  /** The collectors' names: G1 rounds arrays above half a region up to whole regions. */
  private static List<String> collectors() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName()).toList();
  }

  /** Heap in use after full collections, once it has settled. */
  private static long heapAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(50);
      long now = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(now - used) < 1024) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
