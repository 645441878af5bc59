package io.windowpane.bench.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plain sorted-set sliding log as one Lua script ({@code zset-sliding-log.lua}) run with
 * {@code EVALSHA}: drop members older than the window, count, and if below the limit add
 * {@code now} with a unique member and refresh the expiry. One round trip, atomic, exact; memory
 * grows with the events allowed per window. Time is the client's
 * ({@link System#currentTimeMillis()}), passed as {@code ARGV}; keys go in {@code KEYS}, values in
 * {@code ARGV}, never in the script text. After {@code NOSCRIPT} (a server restart or
 * {@code SCRIPT FLUSH}) the script is loaded again and the call retried once.
 */
final class ZsetLuaContender implements Contender {

  private static final String SCRIPT = Scripts.text("zset-sliding-log.lua");

  private final Settings settings;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String window;
  private final String limit;
  private final AtomicLong sequence = new AtomicLong();
  private volatile String sha;
  private String[][] keys;

  ZsetLuaContender(Settings settings) {
    this.settings = settings;
    this.client = LettuceClients.create(settings.redisUri());
    this.connection = client.connect();
    this.commands = connection.sync();
    this.window = Long.toString(settings.windowMillis());
    this.limit = Long.toString(settings.limit());
    this.sha = commands.scriptLoad(SCRIPT);
  }

  @Override
  public void prepare(String[] keys) {
    String[] prefixed = Namespaced.keys(settings.namespace(), keys);
    this.keys = new String[prefixed.length][];
    for (int i = 0; i < prefixed.length; i++) {
      this.keys[i] = new String[] {prefixed[i]};
    }
  }

  @Override
  public Outcome decide(int keyIndex) {
    long now = System.currentTimeMillis();
    String member = now + "-" + sequence.getAndIncrement();
    String[] key = keys[keyIndex];
    Long allowed;
    try {
      allowed = commands.evalsha(sha, ScriptOutputType.INTEGER, key, Long.toString(now), window,
          limit, member);
    } catch (RedisNoScriptException e) {
      sha = commands.scriptLoad(SCRIPT);
      allowed = commands.evalsha(sha, ScriptOutputType.INTEGER, key, Long.toString(now), window,
          limit, member);
    }
    return allowed == 1L ? Outcome.ALLOWED : Outcome.DENIED;
  }

  @Override
  public void close() {
    connection.close();
    LettuceClients.shutdown(client);
  }
}
