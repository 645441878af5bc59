package io.windowpane.testkit.etcd;

import io.windowpane.testkit.process.PerClassServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs one real single-member {@code etcd} per test class and injects its {@link EtcdServer} into
 * constructor, lifecycle-method and test-method parameters of that type.
 *
 * <pre>{@code
 * @ExtendWith(EtcdServerExtension.class)
 * class MyEtcdIT {
 *   private final Client client; // jetcd, or any client taking an endpoint URL
 *
 *   MyEtcdIT(EtcdServer etcd) {
 *     this.client = Client.builder().endpoints(etcd.endpoint()).build();
 *   }
 * }
 * }</pre>
 *
 * <p>Lifecycle: the server starts in {@code beforeAll} and stops in {@code afterAll}; it also sits
 * in the class's {@link Store} as a {@link Store.CloseableResource}, so JUnit closes it even when
 * {@code afterAll} is skipped. {@code @Nested} classes share the enclosing class's server. Data
 * is not cleared between tests: use unique keys.
 *
 * <p>Failure: a missing binary, an early exit or no healthy answer within 10 s throws
 * {@link IllegalStateException} from {@code beforeAll}, which fails (never skips) the class; the
 * message says how to install {@code etcd} or shows the tail of its output.
 *
 * <p>Thread-safety: stateless; test classes running in parallel each get their own server.
 */
public final class EtcdServerExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final PerClassServer<EtcdServer> SERVER =
      new PerClassServer<>(EtcdServerExtension.class, EtcdServer.class, "etcd",
          EtcdServer::close);

  @Override
  public void beforeAll(ExtensionContext context) {
    SERVER.beforeAll(context, EtcdServer::start);
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
  public EtcdServer resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return SERVER.resolveParameter(context);
  }
}
