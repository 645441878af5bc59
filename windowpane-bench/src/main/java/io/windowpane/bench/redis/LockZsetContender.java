package io.windowpane.bench.redis;

import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/*
 * Design note: the design most articles on "distributed sliding-window rate limiting with Redis"
 * arrive at, reproduced as they write it so its cost can be measured, not recommended:
 *
 *   1. lock:    SET lock:KEY TOKEN NX PX 100; while not acquired, sleep a random time in
 *               [0, min(CAP, BASE * 2^attempt)) (exponential backoff, full jitter) and retry,
 *               giving up after DEADLINE (counted, no decision);
 *   2. decide:  ZREMRANGEBYSCORE KEY -inf now-W;  ZCARD KEY;  ZADD KEY now MEMBER;  PEXPIRE KEY W
 *               as four separate commands from the client, with the client's clock; the event is
 *               allowed if ZCARD was below the limit, and it is added either way (rejected events
 *               count against the window too, as in the articles);
 *   3. unlock:  compare-and-delete in Lua (compare-and-delete.lua, EVALSHA).
 *
 * So at least six round trips per decision, all callers of one key serialized behind the lock
 * with sleeps between attempts, and a holder that stalls past 100 ms loses the lock mid-update.
 */

/**
 * The articles' lock-guarded sorted set: a {@code SET NX PX} lock with retry, exponential backoff
 * and jitter, then {@code ZREMRANGEBYSCORE}/{@code ZCARD}/{@code ZADD}/{@code PEXPIRE} as
 * separate commands, then a Lua compare-and-delete release. Client clock. A caller that holds no
 * lock after {@value #DEADLINE_MILLIS} ms gives up: {@link Outcome#GAVE_UP}, no decision.
 */
final class LockZsetContender implements Contender {

  static final long LOCK_TTL_MILLIS = 100;
  static final long BACKOFF_BASE_MICROS = 1_000; // 1 ms, doubled per failed attempt
  static final long BACKOFF_CAP_MICROS = 50_000; // 50 ms
  static final long DEADLINE_MILLIS = 1_000; // 10 lock lifetimes

  private static final String RELEASE = Scripts.text("compare-and-delete.lua");

  private final Settings settings;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final SetArgs lockArgs = SetArgs.Builder.nx().px(LOCK_TTL_MILLIS);
  private final AtomicLong sequence = new AtomicLong();
  private volatile String releaseSha;
  private String[] keys;
  private String[][] lockKeys;

  LockZsetContender(Settings settings) {
    this.settings = settings;
    this.client = LettuceClients.create(settings.redisUri());
    this.connection = client.connect();
    this.commands = connection.sync();
    this.releaseSha = commands.scriptLoad(RELEASE);
  }

  @Override
  public void prepare(String[] keys) {
    this.keys = Namespaced.keys(settings.namespace(), keys);
    this.lockKeys = new String[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      lockKeys[i] = new String[] {settings.namespace() + "lock:" + keys[i]};
    }
  }

  @Override
  public Outcome decide(int keyIndex) {
    String[] lock = lockKeys[keyIndex];
    String token = Long.toString(sequence.getAndIncrement());
    if (!acquire(lock[0], token)) {
      return Outcome.GAVE_UP;
    }
    try {
      String key = keys[keyIndex];
      long now = System.currentTimeMillis();
      commands.zremrangebyscore(key, Range.create(Double.NEGATIVE_INFINITY,
          (double) (now - settings.windowMillis())));
      long count = commands.zcard(key);
      commands.zadd(key, now, now + "-" + token);
      commands.pexpire(key, settings.windowMillis());
      return count < settings.limit() ? Outcome.ALLOWED : Outcome.DENIED;
    } finally {
      release(lock, token);
    }
  }

  private boolean acquire(String lock, String token) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MILLIS);
    long ceilingMicros = BACKOFF_BASE_MICROS;
    while (!"OK".equals(commands.set(lock, token, lockArgs))) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      long sleepMicros = ThreadLocalRandom.current().nextLong(ceilingMicros);
      LockSupport.parkNanos(Math.min(left, TimeUnit.MICROSECONDS.toNanos(sleepMicros)));
      ceilingMicros = Math.min(BACKOFF_CAP_MICROS, ceilingMicros * 2);
    }
    return true;
  }

  private void release(String[] lock, String token) {
    try {
      commands.evalsha(releaseSha, ScriptOutputType.INTEGER, lock, token);
    } catch (RedisNoScriptException e) {
      releaseSha = commands.scriptLoad(RELEASE);
      commands.evalsha(releaseSha, ScriptOutputType.INTEGER, lock, token);
    }
  }

  @Override
  public void close() {
    connection.close();
    LettuceClients.shutdown(client);
  }
}
