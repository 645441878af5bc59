package io.windowpane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The vocabulary read from a tree of maps, lists and strings, as the starter builds it. */
class WindowpaneConfigTest {

  static Map<String, Object> map(Object... pairs) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], pairs[i + 1]);
    }
    return m;
  }

  static WindowpaneConfig read(Map<String, Object> tree) throws ConfigException {
    return WindowpaneConfig.read(WindowpaneConfig.tree(tree), "props", "windowpane",
        List.of("filter"), name -> null);
  }

  @Test
  void read_listAndMappingForms_shadowLimitersNamed() throws Exception {
    WindowpaneConfig config = read(map(
        "limiters", map(
            "api", List.of(map("permits", "10", "window", "1s")),
            "trial", map("shadow", "true",
                "limits", List.of(map("name", "t", "permits", "1", "window", "10s")))),
        "counters", map("logins", map("window", "1m")),
        "filter", "ignored: read by the caller"));
    assertThat(config.limiters().keySet()).containsExactly("api", "trial");
    assertThat(config.limiters().get("api").limits().get(0).name()).isEqualTo("10/1s");
    assertThat(config.shadowLimiters()).isEqualTo(Set.of("trial"));
    assertThat(config.counters().get("logins").windowMillis()).isEqualTo(60_000);
    assertThat(config.engine().kind()).isEqualTo(EngineConfig.Kind.LOCAL);
  }

  @Test
  void read_problemsNamedUnderTheRootPath_withoutLines() {
    assertThatThrownBy(() -> read(map(
        "limiters", map("api", map("shadow", "yes", "limits",
            List.of(map("permits", "0", "window", "1s")))),
        "engine", map("type", "redis"),
        "limiter", "typo")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("props: windowpane.limiter: unknown key; windowpane takes engine,"
            + " limiters, counters, stats, filter\n"
            + "props: windowpane.engine.type redis needs an engine.redis block with a uri (or"
            + " cluster), e.g. uri: redis://127.0.0.1:6379\n"
            + "props: windowpane.limiters.api.shadow must be one of true, false; was 'yes'\n"
            + "props: windowpane.limiters.api.limits[0].permits must be 1 to 1099511627775,"
            + " was 0");
  }
}
