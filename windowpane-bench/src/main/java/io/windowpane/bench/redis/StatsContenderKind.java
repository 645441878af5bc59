package io.windowpane.bench.redis;

import java.util.Arrays;
import java.util.Locale;

/** The contenders of the statistics load generator, in the order they run and are reported. */
enum StatsContenderKind {

  /** windowpane histogram window: record one value (one FCALL). */
  WINDOWPANE_RECORD("windowpane-record", true),
  /** windowpane histogram window: record one value, then read the summary's p99 (two FCALLs). */
  WINDOWPANE_REQUEST("windowpane-request", true),
  /** windowpane exact window: record, then read the summary (every value moved, server-side sort). */
  WINDOWPANE_EXACT_REQUEST("windowpane-exact-request", false),
  /** Raw sorted set, append only: ZADD + ZREMRANGEBYSCORE. */
  RAW_ZSET_APPEND("raw-zset-append", false),
  /** Raw sorted set, the design's unit: ZADD + ZREMRANGEBYSCORE + ZRANGEBYSCORE + recompute. */
  RAW_ZSET_REQUEST("raw-zset-request", false);

  private final String label;
  private final boolean paned;

  StatsContenderKind(String label, boolean paned) {
    this.label = label;
    this.paned = paned;
  }

  /** The name used on the command line. */
  String label() {
    return label;
  }

  /** Whether the contender is a histogram window, run once per pane count given. */
  boolean paned() {
    return paned;
  }

  /** The label as reported: with {@code -pP} for histogram windows. */
  String label(int panes) {
    return paned ? label + "-p" + panes : label;
  }

  /** A new contender on its own client. */
  StatsContender create(StatsSettings settings) {
    return switch (this) {
      case WINDOWPANE_RECORD -> new WindowpaneStatsContender(settings, false, false);
      case WINDOWPANE_REQUEST -> new WindowpaneStatsContender(settings, false, true);
      case WINDOWPANE_EXACT_REQUEST -> new WindowpaneStatsContender(settings, true, true);
      case RAW_ZSET_APPEND -> new RawZsetStatsContender(settings, false);
      case RAW_ZSET_REQUEST -> new RawZsetStatsContender(settings, true);
    };
  }

  static StatsContenderKind of(String label) {
    return Arrays.stream(values())
        .filter(k -> k.label.equals(label.trim().toLowerCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("contender: expected one of "
            + Arrays.stream(values()).map(StatsContenderKind::label).toList() + ", got '"
            + label + "'"));
  }
}
