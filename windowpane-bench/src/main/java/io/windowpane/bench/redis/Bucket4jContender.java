package io.windowpane.bench.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;

/**
 * Bucket4j 8.14.0's Lettuce proxy manager ({@code Bucket4jLettuce.casBasedBuilder}), as its
 * documentation sets it up: a token bucket of capacity L refilled greedily with L tokens per
 * window (the nearest bucket to "L per sliding window"), keys expiring once the bucket would be
 * full again, {@code tryConsume(1)} on a {@link BucketProxy} built once per key. Bucket4j's clock
 * is the client's; its state is a serialized blob updated by compare-and-swap (read, compute in
 * the client, write back with a Lua CAS; a lost race retries).
 */
final class Bucket4jContender implements Contender {

  private final Settings settings;
  private final RedisClient client;
  private final StatefulRedisConnection<String, byte[]> connection;
  private final LettuceBasedProxyManager<String> proxies;
  private final BucketConfiguration configuration;
  private BucketProxy[] buckets;

  Bucket4jContender(Settings settings) {
    this.settings = settings;
    this.client = LettuceClients.create(settings.redisUri());
    this.connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    Duration window = Duration.ofMillis(settings.windowMillis());
    this.proxies = Bucket4jLettuce.casBasedBuilder(connection)
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(window))
        .build();
    this.configuration = BucketConfiguration.builder()
        .addLimit(limit -> limit.capacity(settings.limit()).refillGreedy(settings.limit(), window))
        .build();
  }

  @Override
  public void prepare(String[] keys) {
    String[] prefixed = Namespaced.keys(settings.namespace(), keys);
    buckets = new BucketProxy[prefixed.length];
    for (int i = 0; i < prefixed.length; i++) {
      buckets[i] = proxies.builder().build(prefixed[i], () -> configuration);
    }
  }

  @Override
  public Outcome decide(int keyIndex) {
    return buckets[keyIndex].tryConsume(1) ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    connection.close();
    LettuceClients.shutdown(client);
  }
}
