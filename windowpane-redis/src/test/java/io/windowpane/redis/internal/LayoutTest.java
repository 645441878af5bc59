package io.windowpane.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.StatsSpec;
import io.windowpane.WindowSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Key names: one Redis key per (kind, name, key, window), whatever ':' and '}' they hold. */
class LayoutTest {

  private static final WindowSpec PANES = WindowSpec.panes(Duration.ofSeconds(1), 10);
  private static final List<String> PARTS = List.of("", "a", "b", "c", ":", "::", "a:b", "b:c",
      "}", "a}", "}:b", ":1}", "1", ":1", "{", "{a}", "é", "a:1}:0:p1000/10");

  /** The hash tag's text, as Redis Cluster reads it: from the first '{' to the first '}'. */
  private static String tag(String key) {
    int open = key.indexOf('{');
    int close = key.indexOf('}', open + 1);
    return key.substring(open + 1, close);
  }

  @Test
  void limiterKeys_ofEveryNameAndKeyPair_areDistinct() {
    Map<String, String> owners = new HashMap<>();
    for (String name : PARTS) {
      for (String key : PARTS) {
        for (int i = 0; i < 2; i++) {
          String k = Layout.prefix('r', name) + key + Layout.limitSuffix(name, i, PANES);
          assertThat(owners.put(k, name + " / " + key + " / " + i)).as(k).isNull();
        }
      }
    }
  }

  @Test
  void counterAndStatsKeys_ofEveryNameAndKeyPair_areDistinct() {
    StatsSpec histogram = StatsSpec.histogram(Duration.ofSeconds(1), 10);
    Map<String, String> owners = new HashMap<>();
    for (String name : PARTS) {
      for (String key : PARTS) {
        for (WindowSpec spec : List.of(PANES, WindowSpec.weighted(Duration.ofSeconds(1)),
            WindowSpec.log(Duration.ofSeconds(1)))) {
          String k = Layout.prefix('c', name) + key + Layout.counterSuffix(name, spec);
          assertThat(owners.put(k, name + " / " + key)).as(k).isNull();
        }
        String s = Layout.statsPrefix(name, histogram) + key + Layout.statsSuffix(name, histogram);
        assertThat(owners.put(s, name + " / " + key)).as(s).isNull();
      }
    }
  }

  @Test
  void aNameAndAKeyThatRunIntoEachOther_getTagsOfTheirOwn() {
    String a = Layout.prefix('r', "a") + "b:c" + Layout.limitSuffix("a", 0, PANES);
    String ab = Layout.prefix('r', "a:b") + "c" + Layout.limitSuffix("a:b", 0, PANES);
    assertThat(a).isEqualTo("wp1:r:{a:b:c:1}:0:p1000/10");
    assertThat(ab).isEqualTo("wp1:r:{a:b:c:3}:0:p1000/10");
    assertThat(Layout.prefix('c', "é") + "k" + Layout.counterSuffix("é", PANES))
        .as("N counts UTF-8 bytes").isEqualTo("wp1:c:{é:k:2}:p1000/10");
  }

  /** A key's '}' still ends the hash tag where the user put it: two names can share a slot. */
  @Test
  void aKeyHoldingABrace_endsTheHashTag_soTwoNamesCanShareASlot() {
    String pool = Layout.prefix('r', "pool") + "acme:}x" + Layout.limitSuffix("pool", 0, PANES);
    String user = Layout.prefix('r', "pool:acme") + "}y"
        + Layout.limitSuffix("pool:acme", 0, PANES);
    assertThat(tag(pool)).isEqualTo("pool:acme:").isEqualTo(tag(user));
    assertThat(pool).isNotEqualTo(user);
  }
}
