package io.windowpane.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.windowpane.MillisClock;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.testkit.etcd.EtcdServer;
import io.windowpane.testkit.etcd.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Physical expiry on a real etcd with the real clock: keys share a few rotating leases (never
 * one per call) and etcd deletes them after their logical expiry, never before, within the
 * stated overshoot.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
@ExtendWith(EtcdServerExtension.class)
class LeaseExpiryIT {

  private static final int KEYS = 30;

  private final EtcdServer etcd;

  LeaseExpiryIT(EtcdServer etcd) {
    this.etcd = etcd;
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Test
  void idleKeys_shareAFewLeases_andEtcdDeletesThemAfterTheirLogicalExpiry() throws Exception {
    String name = "lease-" + UUID.randomUUID().toString().substring(0, 8);
    String prefix = "windowpane/c/" + name + "/";
    WindowSpec spec = WindowSpec.log(Duration.ofSeconds(1)); // W + r = 1,001 ms
    try (Client raw = Client.builder().endpoints(etcd.endpoint()).build();
        Windowpane wp = Windowpane.using(EtcdEngine.builder().endpoints(etcd.endpoint())
            .clock(MillisClock.system()).expiryGrace(Duration.ZERO).build())) {
      WindowCounter counter = wp.counter(name, spec);
      Map<String, Long> deletedAt = new ConcurrentHashMap<>();
      CountDownLatch allDeleted = new CountDownLatch(KEYS);
      Watch.Watcher watcher = raw.getWatchClient().watch(bytes(prefix),
          WatchOption.builder().isPrefix(true).build(), r -> {
            for (WatchEvent e : r.getEvents()) {
              if (e.getEventType() == WatchEvent.EventType.DELETE) {
                deletedAt.put(e.getKeyValue().getKey().toString(StandardCharsets.UTF_8),
                    System.nanoTime());
                allDeleted.countDown();
              }
            }
          });
      long lastWrite = 0;
      for (int i = 0; i < KEYS; i++) {
        counter.add("k" + i, 1 + i);
        lastWrite = System.nanoTime();
      }
      List<KeyValue> kvs = raw.getKVClient().get(bytes(prefix),
          GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
      assertThat(kvs).hasSize(KEYS);
      Set<Long> leases = new HashSet<>();
      kvs.forEach(kv -> leases.add(kv.getLease()));
      assertThat(leases).as("shared leases, not one per call").hasSizeLessThanOrEqualTo(3)
          .doesNotContain(0L);

      // expiry class E = ceil(1,001 ms) = 2 s, lease used for u = 1 s with TTL E + u = 3 s
      assertThat(allDeleted.await(15, TimeUnit.SECONDS)).as("every key deleted by etcd").isTrue();
      watcher.close();
      long firstWrite = lastWrite; // bounds below are per key; the writes took well under 1 s
      for (long at : deletedAt.values()) {
        assertThat(Duration.ofNanos(at - firstWrite))
            .as("never before the logical expiry").isGreaterThan(Duration.ofMillis(1_000))
            .as("within E + u plus etcd's expiry check").isLessThan(Duration.ofMillis(4_500));
      }
    }
  }
}
