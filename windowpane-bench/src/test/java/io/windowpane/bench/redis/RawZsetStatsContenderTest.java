package io.windowpane.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.bench.stats.LatencyValues;
import org.junit.jupiter.api.Test;

class RawZsetStatsContenderTest {

  @Test
  void member_carriesItsValueExactly_andIsUniqueBySequence() {
    LatencyValues values = LatencyValues.seeded(11);
    for (int i = 0; i < 10_000; i++) {
      double v = values.at(i);
      assertThat(RawZsetStatsContender.value(RawZsetStatsContender.member(v, i))).isEqualTo(v);
    }
    assertThat(RawZsetStatsContender.member(23.457, 81234)).isEqualTo("23.457:81234");
    assertThat(RawZsetStatsContender.member(1.0, 1)).isNotEqualTo(RawZsetStatsContender.member(1.0, 2));
    assertThat(RawZsetStatsContender.value(RawZsetStatsContender.member(-1e300, 0))).isEqualTo(-1e300);
  }

  @Test
  void options_scenariosAreKeysTimesPopulation_checkedAgainstTheTraffic() {
    StatsOptions options = StatsOptions.parse(new String[] {"--scenarios", "1x10000,1000x10000",
        "--panes", "60,12", "--contenders", "raw-zset-request,windowpane-request"});
    assertThat(options.scenarios()).containsExactly(new StatsOptions.Scenario(1, 10_000),
        new StatsOptions.Scenario(1000, 10_000));
    assertThat(options.scenarios().get(1).keySet().keys()).hasSize(1000);
    assertThat(options.panes()).containsExactly(60, 12);
    assertThat(StatsContenderKind.WINDOWPANE_REQUEST.label(12)).isEqualTo("windowpane-request-p12");
    assertThatThrownBy(() -> StatsOptions.parse(new String[] {"--scenarios", "1x150"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiple of 100");
  }
}
