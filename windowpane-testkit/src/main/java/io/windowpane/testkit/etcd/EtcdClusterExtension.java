package io.windowpane.testkit.etcd;

import io.windowpane.testkit.process.PerClassServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Runs one real 3-member {@code etcd} cluster per test class and injects its
 * {@link EtcdCluster} into constructor, lifecycle-method and test-method parameters of that
 * type. {@code @Nested} classes share the enclosing class's cluster; a test that kills a member
 * leaves it stopped for the rest of the class (two members still form a quorum). A missing
 * binary or an unhealthy cluster fails (never skips) the class.
 */
public final class EtcdClusterExtension
    implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

  private static final PerClassServer<EtcdCluster> CLUSTER =
      new PerClassServer<>(EtcdClusterExtension.class, EtcdCluster.class, "etcd cluster",
          EtcdCluster::close);

  @Override
  public void beforeAll(ExtensionContext context) {
    CLUSTER.beforeAll(context, EtcdCluster::start);
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
  public EtcdCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return CLUSTER.resolveParameter(context);
  }
}
