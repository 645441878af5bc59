package io.windowpane.bench.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** How every Lettuce-based contender connects: one client, bounded command timeouts. */
final class LettuceClients {

  /** Every command fails after this instead of hanging; far above any latency measured here. */
  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private LettuceClients() {}

  static RedisClient create(String uri) {
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(COMMAND_TIMEOUT);
    return RedisClient.create(redisUri);
  }

  /** Closes connections and event loops, waiting at most 2 s. */
  static void shutdown(RedisClient client) {
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
