package io.windowpane.examples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The example end to end on a real Kafka broker: payments of six devices over the last 15
 * minutes, produced in shuffled order (each record's timestamp is the payment's time), are
 * consumed into {@link PaymentRisk}; every device's 10-minute count, its risk answer and its
 * amounts must equal an exact count over what was produced, and the payments whose pane had
 * left the window must be the ones dropped. The windows' clock stands still at the moment the
 * stream is read, so the expected counts are exact.
 */
class PaymentRiskKafkaTest {

  private static final String TOPIC = "payments";
  private static final long PANE = 10_000; // PaymentRisk.WINDOW: 10 min in 60 panes

  @Test
  void riskFromAShuffledStream_equalsAnExactCountOfWhatWasProduced() throws Exception {
    long now = System.currentTimeMillis();
    ManualClock clock = ManualClock.at(now);
    PaymentRisk risk = new PaymentRisk(Windowpane.localBuilder().clock(clock).build());
    Random random = new Random(20_261_127);
    String[] devices = {"dev-1", "dev-2", "dev-3", "dev-4", "dev-5", "dev-6"};
    List<ProducerRecord<String, String>> payments = new ArrayList<>();
    Map<String, Long> expected = new HashMap<>();
    long late = 0;
    for (int i = 0; i < 240; i++) {
      // dev-1 to dev-5 busy, dev-6 four payments within the last 5 minutes
      String device = i < 4 ? "dev-6" : devices[random.nextInt(5)];
      long at = now - random.nextInt(i < 4 ? 5 * 60_000 : 15 * 60_000); // some have left
      double amount = 1 + random.nextInt(50_000) / 100.0;
      payments.add(new ProducerRecord<>(TOPIC, null, at, device, Double.toString(amount)));
      if (Math.floorDiv(at, PANE) > Math.floorDiv(now, PANE) - 60) { // its pane is in the window
        expected.merge(device, 1L, Long::sum);
      } else {
        late++;
      }
    }
    Collections.shuffle(payments, random);

    try (KafkaBroker kafka = KafkaBroker.start()) {
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers);
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        for (ProducerRecord<String, String> r : payments) {
          producer.send(r);
        }
        producer.flush();
      }
      int read = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      try (PaymentConsumer consumer = new PaymentConsumer(kafka.bootstrapServers, TOPIC, "risk",
          risk)) {
        while (read < payments.size() && System.nanoTime() < deadline) {
          read += consumer.pollOnce(Duration.ofMillis(500)).size();
        }
      }
      assertThat(read).as("payments read back from the topic").isEqualTo(payments.size());
    }

    for (String device : devices) {
      long count = expected.getOrDefault(device, 0L);
      assertThat(risk.payments(device)).as(device).isEqualTo(count);
      assertThat(risk.risky(device)).as(device).isEqualTo(count > PaymentRisk.MAX_PAYMENTS);
      assertThat(risk.amounts(device).count()).as(device).isEqualTo(count);
    }
    assertThat(risk.latePaymentsDropped()).isEqualTo(late);
    assertThat(risk.risky("dev-1")).as("a busy device").isTrue();
    assertThat(risk.risky("dev-6")).as("a quiet device: 4 payments").isFalse();
  }
}
