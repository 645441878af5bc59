package io.windowpane.etcd;

import io.windowpane.ManualClock;
import io.windowpane.testkit.conformance.ConformanceBase;
import io.windowpane.testkit.etcd.EtcdServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Engines on the class's etcd whose manual clock starts on a whole minute {@code t0}, so pane
 * {@code t0 + k s} of a window of 10 s is pane k; a fresh {@link #name} per test; every engine
 * opened closed after the test.
 */
abstract class WholeMinuteFixture {

  static final Duration TEN_SECONDS = Duration.ofSeconds(10);

  final EtcdServer etcd;
  final long t0 = Math.floorDiv(ConformanceBase.REALISTIC, 60_000) * 60_000 + 60_000;
  final ManualClock clock = ManualClock.at(t0);
  private final String prefix;
  private final List<EtcdEngine> engines = new ArrayList<>();
  EtcdEngine engine;
  String name;

  WholeMinuteFixture(EtcdServer etcd, String prefix) {
    this.etcd = etcd;
    this.prefix = prefix;
  }

  @BeforeEach
  final void openEngine() {
    engine = open(clock);
    name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Another engine on the same etcd, reading {@code c}; closed after the test. */
  final EtcdEngine open(ManualClock c) {
    EtcdEngine e = TestEngines.builder(List.of(etcd.endpoint()), c).build();
    engines.add(e);
    return e;
  }

  @AfterEach
  final void closeEngines() {
    engines.forEach(EtcdEngine::close);
  }

  /** Sets the clock to {@code t0 + offsetMillis}. */
  final void at(long offsetMillis) {
    clock.set(t0 + offsetMillis);
  }

  static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
