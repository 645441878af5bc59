package io.windowpane.server.config;

import io.windowpane.config.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.config.EngineConfig.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --redis}, {@code --etcd} and {@code --fallback local} on {@link ServerConfig}: their bad
 * input, and that they reach the engine section ({@code EngineOverridesTest} in
 * windowpane-config holds what the engine section makes of them).
 */
class EngineFlagsTest {

  @Test
  void allThree_makeTheChainRedisEtcdLocal_inThatOrder() {
    EngineConfig e = ServerConfig.defaults().withEngines("redis://127.0.0.1:6379",
        List.of("http://127.0.0.1:2379", "http://127.0.0.1:22379"), true).engine();

    assertThat(e.chain()).isTrue();
    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.ETCD, Kind.LOCAL);
    assertThat(e.redisUris()).containsExactly("redis://127.0.0.1:6379");
    assertThat(e.etcdEndpoints()).containsExactly("http://127.0.0.1:2379",
        "http://127.0.0.1:22379");
    assertThat(e.describe()).isEqualTo("chain redis redis://127.0.0.1:6379 -> etcd"
        + " http://127.0.0.1:2379,http://127.0.0.1:22379 -> local");
  }

  @Test
  void badEtcdUrls_nameTheOptionAndTheUrl() {
    ServerConfig c = ServerConfig.defaults();

    assertThatThrownBy(() -> c.withEngines(null, List.of("http://a:2379", "https://b:2379"),
        false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("etcd (--etcd) URL 2 is https://, and TLS to etcd is not available yet (the"
            + " etcd engine takes no certificates): use http:// on a private network, was"
            + " https://b:2379");
    assertThatThrownBy(() -> c.withEngines(null, List.of("127.0.0.1:2379"), false))
        .hasMessage("etcd (--etcd) URL 1 must be http://host:port, e.g. http://127.0.0.1:2379,"
            + " was 127.0.0.1:2379");
    assertThatThrownBy(() -> c.withEngines(null, List.of(), false))
        .hasMessage("etcd (--etcd) must name at least one URL, e.g. http://127.0.0.1:2379");
    assertThatThrownBy(() -> c.withEngines("localhost:6379", null, true))
        .hasMessage("redis (--redis): uri must start with redis:// or rediss://, was"
            + " localhost:6379");
  }
}
