package io.windowpane.examples.kafka;

import io.windowpane.Windowpane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic of payments into a {@link PaymentRisk}: the record's key is the device, its
 * value the amount, its timestamp (the producer's {@code CreateTime}) the payment's time.
 *
 * <pre>
 * java -cp ... io.windowpane.examples.kafka.PaymentConsumer localhost:9092 payments
 * </pre>
 */
public final class PaymentConsumer implements AutoCloseable {

  private final KafkaConsumer<String, String> consumer;
  private final PaymentRisk risk;

  public PaymentConsumer(String bootstrapServers, String topic, String group, PaymentRisk risk) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(p);
    this.consumer.subscribe(List.of(topic));
    this.risk = risk;
  }

  /** Polls once and feeds every payment at its own time; returns the devices, one per payment. */
  public List<String> pollOnce(Duration timeout) {
    List<String> devices = new ArrayList<>();
    for (ConsumerRecord<String, String> r : consumer.poll(timeout)) {
      risk.onPayment(r.key(), Double.parseDouble(r.value()), r.timestamp());
      devices.add(r.key());
    }
    consumer.commitSync();
    return devices;
  }

  @Override
  public void close() {
    consumer.close();
  }

  /** Consumes {@code args[1]} from {@code args[0]} and prints the risky devices as it goes. */
  public static void main(String[] args) {
    PaymentRisk risk = new PaymentRisk(Windowpane.local());
    try (PaymentConsumer c = new PaymentConsumer(args[0], args[1], "windowpane-risk", risk)) {
      for (;;) {
        for (String device : new java.util.TreeSet<>(c.pollOnce(Duration.ofSeconds(1)))) {
          if (risk.risky(device)) {
            System.out.println(device + ": " + risk.payments(device) + " payments in 10 min");
          }
        }
      }
    }
  }
}
