package io.windowpane.bench.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson 3.50.0's {@link RRateLimiter}: {@code RateType.OVERALL}, rate L per window, set once
 * per key with {@code trySetRate} before measurement, then {@code tryAcquire()}. Redisson keeps
 * the rate in a hash and every acquired permit as a member of a sorted set (a sliding log) that
 * its Lua script trims on each call; its clock is the client's. Redisson's own connection pool
 * and defaults otherwise (single server, pool of 64 connections, 3 s timeout, retries).
 */
final class RedissonContender implements Contender {

  private final Settings settings;
  private final RedissonClient client;
  private RRateLimiter[] limiters;

  RedissonContender(Settings settings) {
    this.settings = settings;
    Config config = new Config();
    config.useSingleServer().setAddress(settings.redisUri());
    this.client = Redisson.create(config);
  }

  @Override
  public void prepare(String[] keys) {
    String[] prefixed = Namespaced.keys(settings.namespace(), keys);
    limiters = new RRateLimiter[prefixed.length];
    List<RFuture<Boolean>> set = new ArrayList<>(prefixed.length);
    Duration window = Duration.ofMillis(settings.windowMillis());
    for (int i = 0; i < prefixed.length; i++) {
      limiters[i] = client.getRateLimiter(prefixed[i]);
      set.add(limiters[i].trySetRateAsync(RateType.OVERALL, settings.limit(), window));
    }
    for (RFuture<Boolean> f : set) {
      f.toCompletableFuture().join();
    }
  }

  @Override
  public Outcome decide(int keyIndex) {
    return limiters[keyIndex].tryAcquire() ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
