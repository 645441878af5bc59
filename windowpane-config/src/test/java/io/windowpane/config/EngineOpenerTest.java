package io.windowpane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.Failover;
import io.windowpane.Windowpane;
import io.windowpane.spi.DeferredEngine;
import io.windowpane.spi.Engine;
import io.windowpane.spi.EngineProvider;
import io.windowpane.spi.EngineSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Opening through providers: a single engine fails fast ({@code build}), a chain's remote
 * members are deferred ({@code buildDeferred}), a kind without its module fails naming it, and
 * a failure closes the members already built.
 */
class EngineOpenerTest {

  private static final String REDIS_AND_ETCD = """
        redis: {uri: "redis://:s3cret@127.0.0.1:6379/2", scripts: evalsha, time: client}
        etcd: {endpoints: [http://127.0.0.1:2379], backoffMax: 100ms}
      """;

  /** A provider that records its calls and builds an in-process engine in their place. */
  static final class Recording implements EngineProvider {
    final String kind;
    final List<String> calls = new ArrayList<>();
    final List<EngineSettings> settings = new ArrayList<>();
    final List<Engine> built = new ArrayList<>();
    RuntimeException failure;

    Recording(String kind) {
      this.kind = kind;
    }

    @Override
    public String kind() {
      return kind;
    }

    @Override
    public Engine build(EngineSettings s) {
      calls.add("build");
      return engine(s);
    }

    @Override
    public DeferredEngine buildDeferred(EngineSettings s) {
      calls.add("buildDeferred");
      Engine e = engine(s);
      return DeferredEngine.connecting(kind, true, false, () -> e);
    }

    private Engine engine(EngineSettings s) {
      if (failure != null) {
        throw failure;
      }
      settings.add(s);
      Engine e = new Closing(Windowpane.localBuilder().buildEngine());
      built.add(e);
      return e;
    }
  }

  private final Recording redis = new Recording("redis");
  private final Recording etcd = new Recording("etcd");
  private final EngineOpener opener = new EngineOpener(
      kind -> Optional.ofNullable(Map.<String, EngineProvider>of("redis", redis, "etcd", etcd)
          .get(kind)));

  private static EngineConfig engine(String yaml) throws ConfigException {
    return ConfigFiles.parse(yaml, "x").engine();
  }

  @Test
  void singleEngine_isBuiltToFailFast_withTheBlocksOptions() throws Exception {
    try (Engine e = opener.open(engine("engine:\n  type: redis\n  redis: {uri:"
        + " \"redis://:s3cret@127.0.0.1:6379/2\", scripts: evalsha, time: client,"
        + " database: 3}\n"))) {
      assertThat(redis.calls).containsExactly("build");
      EngineSettings s = redis.settings.get(0);
      assertThat(s.kind()).isEqualTo("redis");
      assertThat(s.text("uri")).contains("redis://:s3cret@127.0.0.1:6379/2");
      assertThat(s.integer("database")).hasValue(3);
      assertThat(s.text("scripts")).contains("evalsha");
      assertThat(s.text("time")).contains("client");
      assertThat(s.text("username")).isEmpty();
    }
  }

  @Test
  void chain_remoteMembersAreDeferred_localIsBuiltHere() throws Exception {
    try (Engine e = opener.open(engine("engine:\n  chain: [redis, etcd, local]\n"
        + REDIS_AND_ETCD))) {
      assertThat(e).isInstanceOf(Failover.class);
      assertThat(redis.calls).containsExactly("buildDeferred");
      assertThat(etcd.calls).containsExactly("buildDeferred");
      EngineSettings s = etcd.settings.get(0);
      assertThat(s.texts("endpoints")).containsExactly("http://127.0.0.1:2379");
      assertThat(s.duration("backoffBase")).isPresent(); // the pair goes together
      assertThat(s.duration("backoffMax")).isPresent();
    }
  }

  @Test
  void kindWithoutItsModule_failsAtOpenNamingTheModule_andClosesWhatWasBuilt()
      throws Exception {
    EngineOpener noEtcd = new EngineOpener(
        kind -> kind.equals("redis") ? Optional.of(redis) : Optional.empty());
    assertThatThrownBy(() -> noEtcd.open(engine("engine:\n  chain: [redis, etcd, local]\n"
        + REDIS_AND_ETCD)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("engine etcd (a member of engine.chain) needs the module windowpane-etcd on"
            + " the class path: add the dependency io.windowpane:windowpane-etcd (the version of"
            + " windowpane-config), or configure another engine");
    assertThat(redis.built).hasSize(1);
    assertThat(((Closing) redis.built.get(0)).closed).isTrue();
  }

  @Test
  void memberFailing_closesTheMembersBuilt_andGoesUp() throws Exception {
    etcd.failure = new IllegalArgumentException("bad option");
    assertThatThrownBy(() -> opener.open(engine("engine:\n  chain: [redis, etcd, local]\n"
        + REDIS_AND_ETCD))).hasMessage("bad option");
    assertThat(((Closing) redis.built.get(0)).closed).isTrue();
  }

  /** An engine that remembers being closed. */
  static final class Closing implements Engine {
    private final Engine engine;
    volatile boolean closed;

    Closing(Engine engine) {
      this.engine = engine;
    }

    @Override
    public String name() {
      return engine.name();
    }

    @Override
    public io.windowpane.spi.CounterStore counterStore(String n, io.windowpane.WindowSpec s) {
      return engine.counterStore(n, s);
    }

    @Override
    public io.windowpane.spi.LimiterStore limiterStore(String n, io.windowpane.Quota q) {
      return engine.limiterStore(n, q);
    }

    @Override
    public io.windowpane.spi.StatsStore statsStore(String n, io.windowpane.StatsSpec s) {
      return engine.statsStore(n, s);
    }

    @Override
    public void close() {
      closed = true;
      engine.close();
    }
  }
}
