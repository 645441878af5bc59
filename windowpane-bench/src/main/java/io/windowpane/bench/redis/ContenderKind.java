package io.windowpane.bench.redis;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;

/** The contenders of the Redis load generator, in the order they run and are reported. */
enum ContenderKind {

  /** Plain {@code INCR}: the ceiling, decides nothing. */
  INCR("incr", IncrContender::new),
  /** A sorted-set sliding log in one Lua script ({@code EVALSHA}). */
  ZSET_LUA("zset-lua", ZsetLuaContender::new),
  /** The articles' lock-guarded sorted set (client-side commands under a {@code SET NX} lock). */
  LOCK_ZSET("lock-zset", LockZsetContender::new),
  /** Bucket4j's Lettuce proxy manager, greedy token bucket. */
  BUCKET4J("bucket4j", Bucket4jContender::new),
  /** Redisson's {@code RRateLimiter}, {@code OVERALL}. */
  REDISSON("redisson", RedissonContender::new),
  /** windowpane's Redis engine, {@code SLIDING_PANES}. */
  WINDOWPANE_PANES("windowpane-panes", s -> new WindowpaneContender(s, "panes")),
  /** The same with coalescing off: one {@code FCALL} per call, as before coalescing. */
  WINDOWPANE_PANES_UNCOALESCED("windowpane-panes-uncoalesced",
      s -> new WindowpaneContender(s, "panes-uncoalesced")),
  /** The panes contender with the memory guard off: what the guard costs a decision. */
  WINDOWPANE_PANES_NOGUARD("windowpane-panes-noguard",
      s -> new WindowpaneContender(s, "panes-noguard")),
  /** windowpane's Redis engine, {@code SLIDING_WEIGHTED}. */
  WINDOWPANE_WEIGHTED("windowpane-weighted", s -> new WindowpaneContender(s, "weighted")),
  /** windowpane's Redis engine, {@code SLIDING_LOG}. */
  WINDOWPANE_LOG("windowpane-log", s -> new WindowpaneContender(s, "log")),
  /**
   * windowpane's API on this module's {@link LockModeEngine}, {@code SLIDING_LOG}: the articles'
   * design (a lock per key around sorted-set commands) behind the engine SPI, same answers as
   * the functions.
   */
  WINDOWPANE_LOCKMODE("windowpane-lockmode", s -> new WindowpaneContender(s, "lockmode"));

  private final String label;
  private final Function<Settings, Contender> factory;

  ContenderKind(String label, Function<Settings, Contender> factory) {
    this.label = label;
    this.factory = factory;
  }

  /** The name used on the command line and in reports. */
  String label() {
    return label;
  }

  /** A new contender on its own client. */
  Contender create(Settings settings) {
    return factory.apply(settings);
  }

  /** The kind labelled {@code label}. */
  static ContenderKind of(String label) {
    return Arrays.stream(values())
        .filter(k -> k.label.equals(label.toLowerCase(Locale.ROOT)))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("contender: expected one of "
            + Arrays.stream(values()).map(ContenderKind::label).toList() + ", got '" + label + "'"));
  }
}
