package io.windowpane.bench.redis;

import io.windowpane.Limit;
import io.windowpane.RateLimiter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.spi.Engine;
import java.time.Duration;

/**
 * windowpane's Redis engine, one layout per instance: {@code RateLimiter.tryConsume(key, 1)}, one
 * round trip to one server-side function ({@code FCALL} where the server has Functions, else
 * {@code EVALSHA}); or, for {@code lockmode}, the {@link LockModeEngine} of this module (a lock
 * and plain sorted-set commands) behind the same API. Server time, the engine's defaults otherwise (one multiplexed connection)
 * except the command timeout, 2 s as for the peers. The limiter's name (a namespace of its
 * own per contender and scenario) keeps its keys apart from every other run's.
 */
final class WindowpaneContender implements Contender {

  private final Windowpane windowpane;
  private final RateLimiter limiter;
  private String[] keys;

  WindowpaneContender(Settings settings, String layout) {
    Duration window = Duration.ofMillis(settings.windowMillis());
    WindowSpec spec = switch (layout) {
      case "panes", "panes-uncoalesced", "panes-noguard" ->
          WindowSpec.panes(window, settings.panes());
      case "weighted" -> WindowSpec.weighted(window);
      case "log", "lockmode" -> WindowSpec.log(window);
      default -> throw new IllegalArgumentException(
          "layout: expected panes, panes-uncoalesced, panes-noguard, weighted, log or lockmode,"
              + " got " + layout);
    };
    Engine engine;
    if (layout.equals("lockmode")) {
      // a caller waits this long for a key's lock
      engine = new LockModeEngine(settings.redisUri(), Duration.ofSeconds(30));
    } else {
      RedisEngine.Builder builder = RedisEngine.builder()
          .uri(settings.redisUri())
          .timeout(LettuceClients.COMMAND_TIMEOUT); // as every Lettuce-based peer here
      if (layout.equals("panes-uncoalesced")) {
        builder.coalescing(false); // every call its own FCALL: what coalescing costs or saves
      }
      if (layout.equals("panes-noguard")) {
        builder.memoryGuard(false); // no INFO reads, no flag check: what the memory guard costs
      }
      engine = builder.build();
    }
    this.windowpane = Windowpane.using(engine);
    String namespace = settings.namespace();
    String name = namespace.substring(0, namespace.length() - 1); // without the trailing ':'
    this.limiter = windowpane.limiter(name, Limit.of(settings.limit(), spec));
  }

  @Override
  public void prepare(String[] keys) {
    this.keys = keys.clone();
  }

  @Override
  public Outcome decide(int keyIndex) {
    return limiter.tryConsume(keys[keyIndex], 1) ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    windowpane.close();
  }
}
