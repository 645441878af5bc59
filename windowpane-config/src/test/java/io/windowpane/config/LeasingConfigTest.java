package io.windowpane.config;

import static io.windowpane.config.ConfigFiles.first;
import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Leasing;
import org.junit.jupiter.api.Test;

/**
 * A limiter's {@code leasing:} block (docs/leasing.md) turns leasing on in its quota with the
 * given options; absent or {@code enabled: false} leaves it off; a bad value is a problem naming
 * the field's path, its range and the line.
 */
class LeasingConfigTest {

  static String limiter(String leasing) {
    return """
        limiters:
          api:
            limits:
              - permits: 1000
                window: 1s
        """ + leasing.indent(4);
  }

  @Test
  void leasingBlock_setsEveryOption() throws Exception {
    WindowpaneConfig c = ConfigFiles.parse(limiter("""
        leasing: { enabled: true, maxShare: 0.25, maxSlice: 100, logLifetime: 20ms }
        """), "windowpane.yaml");
    Leasing l = c.limiters().get("api").leasing().orElseThrow();
    assertThat(l.maxShare()).isEqualTo(0.25);
    assertThat(l.maxSlice()).isEqualTo(100);
    assertThat(l.logLifetimeMillis()).isEqualTo(20);
  }

  @Test
  void emptyBlock_isLeasingWithTheDefaults_andEnabledFalse_orNoBlock_isOff() throws Exception {
    assertThat(ConfigFiles.parse(limiter("leasing: {}\n"), "a.yaml").limiters().get("api")
        .leasing()).contains(Leasing.defaults());
    assertThat(ConfigFiles.parse(limiter("leasing: { enabled: false, maxShare: 0.5 }\n"),
        "b.yaml").limiters().get("api").leasing()).isEmpty();
    assertThat(ConfigFiles.parse(limiter(""), "c.yaml").limiters().get("api").leasing())
        .isEmpty();
  }

  @Test
  void leasingAlongsideShadow_keepsBoth() throws Exception {
    WindowpaneConfig c = ConfigFiles.parse(limiter("shadow: true\nleasing: {}\n"), "s.yaml");
    assertThat(c.shadowLimiters()).containsExactly("api");
    assertThat(c.limiters().get("api").leasing()).isPresent();
  }

  @Test
  void badValues_nameTheFieldAndItsRange_evenWhenDisabled() {
    assertThat(first(limiter("leasing:\n  maxShare: 1.5\n"))).isEqualTo("windowpane.yaml:7:"
        + " limiters.api.leasing.maxShare must be more than 0 and at most 1 (0.1 is a tenth of"
        + " the room left), was 1.5");
    assertThat(first(limiter("leasing:\n  enabled: false\n  maxShare: 0\n")))
        .isEqualTo("windowpane.yaml:8: limiters.api.leasing.maxShare must be more than 0 and"
            + " at most 1 (0.1 is a tenth of the room left), was 0.0");
    assertThat(first(limiter("leasing:\n  maxSlice: 0\n"))).isEqualTo("windowpane.yaml:7:"
        + " limiters.api.leasing.maxSlice must be 1 to 1099511627775, was 0");
    assertThat(first(limiter("leasing:\n  logLifetime: 2m\n"))).isEqualTo("windowpane.yaml:7:"
        + " limiters.api.leasing.logLifetime must be 1ms to 1m, was 2m");
    assertThat(first(limiter("leasing:\n  enabled: yes\n"))).isEqualTo("windowpane.yaml:7:"
        + " limiters.api.leasing.enabled must be one of true, false; was 'yes'");
    assertThat(first(limiter("leasing:\n  share: 0.1\n"))).isEqualTo("windowpane.yaml:7:"
        + " limiters.api.leasing.share: unknown key; limiters.api.leasing takes enabled,"
        + " maxShare, maxSlice, logLifetime");
  }
}
