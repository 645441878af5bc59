package io.windowpane.bench.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * {@code INCR key}: one round trip, the cheapest write Redis has. It decides nothing (no window,
 * no limit, no expiry); it is the ceiling a rate limit on this server and client cannot beat.
 */
final class IncrContender implements Contender {

  private final Settings settings;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private String[] keys;

  IncrContender(Settings settings) {
    this.settings = settings;
    this.client = LettuceClients.create(settings.redisUri());
    this.connection = client.connect();
    this.commands = connection.sync();
  }

  @Override
  public void prepare(String[] keys) {
    this.keys = Namespaced.keys(settings.namespace(), keys);
  }

  @Override
  public Outcome decide(int keyIndex) {
    commands.incr(keys[keyIndex]);
    return Outcome.COUNTED;
  }

  @Override
  public void close() {
    connection.close();
    LettuceClients.shutdown(client);
  }
}
