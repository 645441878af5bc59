package io.windowpane.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineSettingsTest {

  private final EngineSettings settings = EngineSettings.of("redis")
      .text("uri", "redis://h:6379")
      .texts("cluster", List.of("redis://a:7000"))
      .duration("timeout", Duration.ofMillis(250))
      .integer("database", 2)
      .text("password", "s3cret")
      .text("username", null)
      .build();

  @Test
  void accessors_returnTheTypedValue_absentOptionsEmpty() {
    assertThat(settings.kind()).isEqualTo("redis");
    assertThat(settings.names()).containsExactly("uri", "cluster", "timeout", "database",
        "password");
    assertThat(settings.text("uri")).contains("redis://h:6379");
    assertThat(settings.texts("cluster")).containsExactly("redis://a:7000");
    assertThat(settings.duration("timeout")).contains(Duration.ofMillis(250));
    assertThat(settings.integer("database")).hasValue(2);
    assertThat(settings.text("username")).isEmpty();
    assertThat(settings.has("username")).isFalse();
    assertThat(settings.texts("seeds")).isEmpty();
  }

  @Test
  void accessor_ofAnotherType_throwsNamingTheOption() {
    assertThatThrownBy(() -> settings.duration("uri"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redis option uri must be a duration, was a String");
  }

  @Test
  void toString_showsNoText() {
    assertThat(settings).hasToString("EngineSettings[redis, uri, cluster, timeout=PT0.25S,"
        + " database=2, password]");
  }
}
