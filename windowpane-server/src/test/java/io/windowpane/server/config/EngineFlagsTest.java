package io.windowpane.server.config;

import io.windowpane.config.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.config.EngineConfig.Kind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --redis}, {@code --etcd} and {@code --fallback local}: which engine or chain they make
 * out of the file's, and their bad input.
 */
class EngineFlagsTest {

  private static final String FILE = """
      engine:
        type: redis
        onFailure: deny
        redis:
          uri: redis://10.0.0.1:6379
          timeout: 300ms
        """;

  private static final String CHAIN_FILE = """
      engine:
        chain: [redis, etcd, local]
        onFailure: allow
        redis: {uri: redis://10.0.0.1:6379, timeout: 250ms}
        etcd: {endpoints: [http://10.0.0.2:2379], namespace: shop}
        local: {maxKeys: 77}
        failover: {callTimeout: 30ms, fleetNodes: 5}
      """;

  @Test
  void allThree_makeTheChainRedisEtcdLocal_inThatOrder() {
    EngineConfig e = ServerConfig.defaults().withEngines("redis://127.0.0.1:6379",
        List.of("http://127.0.0.1:2379", "http://127.0.0.1:22379"), true).engine();

    assertThat(e.chain()).isTrue();
    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.ETCD, Kind.LOCAL);
    assertThat(e.redisUris()).containsExactly("redis://127.0.0.1:6379");
    assertThat(e.etcdEndpoints()).containsExactly("http://127.0.0.1:2379",
        "http://127.0.0.1:22379");
    assertThat(e.failover()).isEqualTo(FailoverOptions.DEFAULTS);
    assertThat(e.describe()).isEqualTo("chain redis redis://127.0.0.1:6379 -> etcd"
        + " http://127.0.0.1:2379,http://127.0.0.1:22379 -> local");
  }

  @Test
  void oneEngineFlag_isThatEngineAlone() {
    EngineConfig etcd = ServerConfig.defaults()
        .withEngines(null, List.of("http://127.0.0.1:2379"), false).engine();
    EngineConfig redis = ServerConfig.defaults()
        .withEngines("redis://127.0.0.1:6379", null, false).engine();

    assertThat(etcd.chain()).isFalse();
    assertThat(etcd.engines()).containsExactly(Kind.ETCD);
    assertThat(redis.chain()).isFalse();
    assertThat(redis.engines()).containsExactly(Kind.REDIS);
  }

  @Test
  void redisAndFallback_overAFilesRedis_keepTheFilesOptions() throws Exception {
    EngineConfig e = ServerConfig.parse(FILE, "f.yaml")
        .withEngines("redis://127.0.0.1:6380", null, true).engine();

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
    assertThat(e.redisUris()).containsExactly("redis://127.0.0.1:6380");
    assertThat(e.redisTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.DENY);
  }

  @Test
  void fallbackAlone_appendsLocalToTheFilesEngine() throws Exception {
    EngineConfig e = ServerConfig.parse(FILE, "f.yaml").withEngines(null, null, true).engine();

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
    assertThat(e.redisUris()).containsExactly("redis://10.0.0.1:6379");
  }

  @Test
  void fallbackAlone_onLocal_changesNothing() {
    EngineConfig e = ServerConfig.defaults().withEngines(null, null, true).engine();

    assertThat(e.engines()).containsExactly(Kind.LOCAL);
    assertThat(e.chain()).isFalse();
  }

  @Test
  void engineFlags_replaceTheFilesChain_butKeepEachEnginesOptionsAndFailover()
      throws Exception {
    ServerConfig file = ServerConfig.parse(CHAIN_FILE, "f.yaml");

    EngineConfig etcdOnly = file.withEngines(null, List.of("http://127.0.0.1:2379"), false)
        .engine();
    assertThat(etcdOnly.engines()).containsExactly(Kind.ETCD);
    assertThat(etcdOnly.chain()).isFalse();
    assertThat(etcdOnly.etcd().namespace()).isEqualTo("shop");

    EngineConfig etcdLocal = file.withEngines(null, List.of("http://127.0.0.1:2379"), true)
        .engine();
    assertThat(etcdLocal.engines()).containsExactly(Kind.ETCD, Kind.LOCAL);
    assertThat(etcdLocal.localMaxKeys()).hasValue(77);
    assertThat(etcdLocal.failover().callTimeout()).isEqualTo(Duration.ofMillis(30));
    assertThat(etcdLocal.failover().fleetShare()).isEqualTo(0.2);
    assertThat(etcdLocal.onFailure()).isEqualTo(EngineConfig.OnFailure.ALLOW);

    EngineConfig same = file.withEngines(null, null, true).engine();
    assertThat(same.engines()).containsExactly(Kind.REDIS, Kind.ETCD, Kind.LOCAL);
    assertThat(same.chain()).isTrue();
  }

  @Test
  void aOneMemberChainInTheFile_getsLocalAppended() throws Exception {
    EngineConfig e = ServerConfig.parse("""
        engine:
          chain: [redis]
          redis: {uri: redis://10.0.0.1:6379}
        """, "f.yaml").withEngines(null, null, true).engine();

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
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
