package io.windowpane.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.config.EngineConfig.Kind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineConfig#withEngines}, behind the service's {@code --redis}, {@code --etcd} and
 * {@code --fallback local}: which engine or chain they make out of the file's, and which of the
 * file's options they keep.
 */
class EngineOverridesTest {

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
    EngineConfig e = EngineConfig.local().withEngines("redis://127.0.0.1:6379",
        List.of("http://127.0.0.1:2379", "http://127.0.0.1:22379"), true);

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
    EngineConfig etcd = EngineConfig.local()
        .withEngines(null, List.of("http://127.0.0.1:2379"), false);
    EngineConfig redis = EngineConfig.local()
        .withEngines("redis://127.0.0.1:6379", null, false);

    assertThat(etcd.chain()).isFalse();
    assertThat(etcd.engines()).containsExactly(Kind.ETCD);
    assertThat(redis.chain()).isFalse();
    assertThat(redis.engines()).containsExactly(Kind.REDIS);
  }

  @Test
  void redisAndFallback_overAFilesRedis_keepTheFilesOptions() throws Exception {
    EngineConfig e = ConfigFiles.parse(FILE, "f.yaml").engine()
        .withEngines("redis://127.0.0.1:6380", null, true);

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
    assertThat(e.redisUris()).containsExactly("redis://127.0.0.1:6380");
    assertThat(e.redisTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(e.onFailure()).isEqualTo(EngineConfig.OnFailure.DENY);
  }

  @Test
  void fallbackAlone_appendsLocalToTheFilesEngine() throws Exception {
    EngineConfig e = ConfigFiles.parse(FILE, "f.yaml").engine().withEngines(null, null, true);

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
    assertThat(e.redisUris()).containsExactly("redis://10.0.0.1:6379");
  }

  @Test
  void fallbackAlone_onLocal_changesNothing() {
    EngineConfig e = EngineConfig.local().withEngines(null, null, true);

    assertThat(e.engines()).containsExactly(Kind.LOCAL);
    assertThat(e.chain()).isFalse();
  }

  @Test
  void engines_replaceTheFilesChain_butKeepEachEnginesOptionsAndFailover()
      throws Exception {
    EngineConfig file = ConfigFiles.parse(CHAIN_FILE, "f.yaml").engine();

    EngineConfig etcdOnly = file.withEngines(null, List.of("http://127.0.0.1:2379"), false);
    assertThat(etcdOnly.engines()).containsExactly(Kind.ETCD);
    assertThat(etcdOnly.chain()).isFalse();
    assertThat(etcdOnly.etcd().namespace()).isEqualTo("shop");

    EngineConfig etcdLocal = file.withEngines(null, List.of("http://127.0.0.1:2379"), true);
    assertThat(etcdLocal.engines()).containsExactly(Kind.ETCD, Kind.LOCAL);
    assertThat(etcdLocal.localMaxKeys()).hasValue(77);
    assertThat(etcdLocal.failover().callTimeout()).isEqualTo(Duration.ofMillis(30));
    assertThat(etcdLocal.failover().fleetShare()).isEqualTo(0.2);
    assertThat(etcdLocal.onFailure()).isEqualTo(EngineConfig.OnFailure.ALLOW);

    EngineConfig same = file.withEngines(null, null, true);
    assertThat(same.engines()).containsExactly(Kind.REDIS, Kind.ETCD, Kind.LOCAL);
    assertThat(same.chain()).isTrue();
  }

  @Test
  void aOneMemberChainInTheFile_getsLocalAppended() throws Exception {
    EngineConfig e = ConfigFiles.parse("""
        engine:
          chain: [redis]
          redis: {uri: redis://10.0.0.1:6379}
        """, "f.yaml").engine().withEngines(null, null, true);

    assertThat(e.engines()).containsExactly(Kind.REDIS, Kind.LOCAL);
    assertThat(e.chain()).isTrue();
  }
}
