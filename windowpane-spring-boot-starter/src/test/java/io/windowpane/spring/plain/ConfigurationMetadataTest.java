package io.windowpane.spring.plain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The jar describes every windowpane property to IDEs: the starter's own and the vocabulary. */
class ConfigurationMetadataTest {

  static String metadata() throws IOException {
    try (InputStream in = ConfigurationMetadataTest.class.getClassLoader()
        .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("META-INF/spring-configuration-metadata.json").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void metadata_describesStarterAndVocabularyProperties() throws IOException {
    String json = metadata();
    for (String name : new String[] {"windowpane.enabled", "windowpane.filter.rules",
        "windowpane.filter.order", "windowpane.engine.type", "windowpane.engine.chain",
        "windowpane.engine.on-failure", "windowpane.engine.local.max-keys",
        "windowpane.engine.redis.uri", "windowpane.engine.redis.timeout",
        "windowpane.engine.etcd.endpoints", "windowpane.engine.etcd.max-txn-ops",
        "windowpane.engine.failover.call-timeout",
        "windowpane.engine.failover.fleet-nodes", "windowpane.limiters", "windowpane.counters",
        "windowpane.stats"}) {
      assertThat(json).contains("\"name\": \"" + name + "\"");
    }
    assertThat(json).contains("\"value\": \"redis\"");
  }
}
