package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.PerClassServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs one real {@code redis-server} per test class and injects its {@link RedisServer} into
 * constructor, lifecycle-method and test-method parameters of that type.
 *
 * <pre>{@code
 * @ExtendWith(RedisServerExtension.class)
 * class MyRedisIT {
 *   @Test
 *   void ping(RedisServer redis) {
 *     try (RespClient client = redis.client()) {
 *       assertThat(client.command("PING")).isEqualTo("PONG");
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>For a password, register it on a static field instead:
 * {@code @RegisterExtension static final RedisServerExtension REDIS =
 * RedisServerExtension.withPassword("s3cret");}
 *
 * <p>Lifecycle: the server starts in {@code beforeAll} and stops in {@code afterAll}; it also sits
 * in the class's {@link Store} as a {@link Store.CloseableResource}, so JUnit closes it even when
 * {@code afterAll} is skipped. {@code @Nested} classes share the enclosing class's server (the
 * outermost registration wins). Data is not flushed between tests: use unique keys or
 * {@code FLUSHALL} through {@link RedisServer#client()}.
 *
 * <p>Failure: a missing binary, an early exit or no {@code PING} answer within 10 s throws
 * {@link IllegalStateException} from {@code beforeAll}, which fails (never skips) the class; the
 * message says how to install {@code redis-server} or shows the tail of its output.
 *
 * <p>Thread-safety: instances are immutable; test classes running in parallel each get their own
 * server.
 */
public final class RedisServerExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final PerClassServer<RedisServer> SERVER =
      new PerClassServer<>(RedisServerExtension.class, RedisServer.class, "redis-server",
          RedisServer::close);

  private final String password;
  private final boolean redis6;

  /** A server without a password; the constructor {@code @ExtendWith} uses. */
  public RedisServerExtension() {
    this(null, false);
  }

  private RedisServerExtension(String password, boolean redis6) {
    this.password = password;
    this.redis6 = redis6;
  }

  /**
   * An extension whose server is Redis 6.2 (no Functions), from {@link RedisServer#startRedis6()}.
   */
  public static RedisServerExtension redis6() {
    return new RedisServerExtension(null, true);
  }

  /**
   * An extension whose server requires {@code AUTH password}.
   *
   * @param password non-empty, without whitespace or control characters
   * @throws IllegalArgumentException if the password is empty or contains such characters
   */
  public static RedisServerExtension withPassword(String password) {
    return new RedisServerExtension(RedisServer.checkPassword(password), false);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    SERVER.beforeAll(context, () -> redis6 ? RedisServer.startRedis6()
        : password == null ? RedisServer.start() : RedisServer.startWithPassword(password));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    SERVER.afterAll(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return SERVER.supportsParameter(parameter);
  }

  @Override
  public RedisServer resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return SERVER.resolveParameter(context);
  }
}
