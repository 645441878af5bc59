package io.windowpane.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.spi.EngineProvider;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * This application uses the starter on the in-process engine and adds no engine module, so
 * neither Redis nor etcd reaches its class path: the starter's windowpane-redis and
 * windowpane-etcd are optional dependencies (docs/spring-boot.md, "The engines are the
 * application's choice").
 */
class LocalOnlyClassPathTest {

  @Test
  void noEngineModule_andNoClientLibrary_onALocalApplicationsClassPath() {
    assertThat(ServiceLoader.load(EngineProvider.class).stream()).isEmpty();
    for (String name : List.of("io.windowpane.redis.RedisEngine", "io.windowpane.etcd.EtcdEngine",
        "io.lettuce.core.RedisClient", "io.etcd.jetcd.Client", "io.grpc.ManagedChannel",
        "io.netty.channel.Channel")) {
      assertThat(present(name)).as(name).isFalse();
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, LocalOnlyClassPathTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
