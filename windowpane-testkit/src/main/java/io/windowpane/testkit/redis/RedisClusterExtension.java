package io.windowpane.testkit.redis;

import io.windowpane.testkit.process.PerClassServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs one real Redis Cluster (three primaries by default) per test class and injects its
 * {@link RedisCluster} into constructor, lifecycle-method and test-method parameters of that
 * type.
 *
 * <pre>{@code
 * @ExtendWith(RedisClusterExtension.class)
 * class MyClusterIT {
 *   @Test
 *   void set(RedisCluster cluster) {
 *     int slot = RedisCluster.slotOf("k");
 *     try (RespClient client = cluster.nodeOwning(slot).client()) {
 *       assertThat(client.command("SET", "k", "v")).isEqualTo("OK");
 *     }
 *   }
 * }
 * }</pre>
 *
 * <p>For a password or another size, register it on a static field instead:
 * {@code @RegisterExtension static final RedisClusterExtension CLUSTER =
 * RedisClusterExtension.withPassword("s3cret");}
 *
 * <p>Lifecycle: the cluster starts in {@code beforeAll} (usually 2 to 3 s) and stops in
 * {@code afterAll}; it also sits in the class's {@link Store} as a
 * {@link Store.CloseableResource}, so JUnit closes it even when {@code afterAll} is skipped.
 * {@code @Nested} classes share the enclosing class's cluster (the outermost registration wins).
 * Neither data nor slot ownership is reset between tests: use unique keys, and do not assume
 * the initial slot layout after a test that migrates slots.
 *
 * <p>Failure: a missing binary, a node that does not start, or a cluster not healthy within 20 s
 * throws {@link IllegalStateException} from {@code beforeAll}, which fails (never skips) the
 * class; the message says how to install {@code redis-server} or shows the nodes' state and
 * output.
 *
 * <p>Thread-safety: instances are immutable; test classes running in parallel each get their own
 * cluster.
 */
public final class RedisClusterExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final PerClassServer<RedisCluster> CLUSTER =
      new PerClassServer<>(RedisClusterExtension.class, RedisCluster.class, "Redis Cluster",
          RedisCluster::close);

  private final int primaries;
  private final String password;

  /** Three primaries without a password; the constructor {@code @ExtendWith} uses. */
  public RedisClusterExtension() {
    this(RedisCluster.DEFAULT_PRIMARIES, null);
  }

  private RedisClusterExtension(int primaries, String password) {
    this.primaries = primaries;
    this.password = password;
  }

  /**
   * An extension whose cluster has {@code primaries} primaries and no password.
   *
   * @param primaries from 1 to 16
   * @throws IllegalArgumentException if {@code primaries} is out of range
   */
  public static RedisClusterExtension withPrimaries(int primaries) {
    return new RedisClusterExtension(RedisCluster.checkPrimaries(primaries), null);
  }

  /**
   * An extension whose cluster has three primaries requiring {@code AUTH password}.
   *
   * @param password non-empty, without whitespace or control characters
   * @throws IllegalArgumentException if the password is empty or contains such characters
   */
  public static RedisClusterExtension withPassword(String password) {
    return new RedisClusterExtension(RedisCluster.DEFAULT_PRIMARIES,
        RedisServer.checkPassword(password));
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    CLUSTER.beforeAll(context, () -> password == null
        ? RedisCluster.start(primaries)
        : RedisCluster.startWithPassword(primaries, password));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    CLUSTER.afterAll(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return CLUSTER.supportsParameter(parameter);
  }

  @Override
  public RedisCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return CLUSTER.resolveParameter(context);
  }
}
