package io.windowpane.config;

import static io.windowpane.config.ConfigFiles.first;
import static io.windowpane.config.ConfigFiles.problem;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Every class of problem in the limiters, counters and statistics of a configuration file is
 * reported with the file, the exact line and the path of the offending value.
 */
class WindowProblemsTest {

  @Test
  void load_unknownKeyInLimit_namesIndexedPath() {
    assertThat(first("""
        limiters:
          api:
            - permits: 10
              window: 1s
              pane: 10
        """)).isEqualTo("windowpane.yaml:5: limiters.api[0].pane: unknown key; limiters.api[0]"
            + " takes name, permits, window, algorithm, panes, adaptive");
  }

  @Test
  void load_eventTime_setsTheWindowsRules_andABadOneIsNamed() throws Exception {
    WindowpaneConfig config = ConfigFiles.parse("""
        counters:
          pay:
            window: 10m
            panes: 60
            eventTime: { maxAhead: 2s, late: drop }
        stats:
          amounts:
            window: 1m
            eventTime: { maxAhead: 0ms }
        """, "windowpane.yaml");
    io.windowpane.EventTime pay = config.counters().get("pay").eventTime();
    assertThat(pay.maxAheadMillis()).isEqualTo(2_000);
    assertThat(pay.dropsLate()).isTrue();
    assertThat(config.stats().get("amounts").eventTime().maxAheadMillis()).isZero();
    assertThat(config.stats().get("amounts").eventTime().dropsLate()).isFalse();
    assertThat(first("""
        counters:
          pay:
            window: 10m
            eventTime: { late: skip }
        """)).startsWith("windowpane.yaml:4: counters.pay.eventTime.late must be one of");
  }

  @Test
  void load_adaptive_setsTheMinimumOnLimitsCountersAndStats_andABadOneIsNamed()
      throws Exception {
    WindowpaneConfig config = ConfigFiles.parse("""
        limiters:
          api:
            - permits: 100
              window: 1m
              panes: 60
              adaptive: { minPanes: 15 }
            - permits: 1000
              window: 1h
        counters:
          pay:
            window: 10m
            panes: 60
            adaptive: { minPanes: 30 }
        stats:
          latency:
            window: 1m
            panes: 12
            adaptive: { minPanes: 3 }
        """, "windowpane.yaml");
    assertThat(config.limiters().get("api").limits().get(0).window().adaptiveMinPanes())
        .hasValue(15);
    assertThat(config.limiters().get("api").limits().get(1).window().adaptiveMinPanes())
        .isEmpty();
    assertThat(config.counters().get("pay").adaptiveMinPanes()).hasValue(30);
    assertThat(config.stats().get("latency").window().adaptiveMinPanes()).hasValue(3);
    assertThat(first("""
        counters:
          pay:
            window: 1m
            panes: 60
            adaptive: { minPanes: 20 }
        """)).isEqualTo("windowpane.yaml:5: counters.pay: minPanes must be 60 halved zero or more"
            + " times (one of 60, 30, 15), was 20");
    assertThat(first("""
        counters:
          pay:
            window: 1m
            algorithm: log
            adaptive: { minPanes: 1 }
        """)).isEqualTo("windowpane.yaml:5: counters.pay: adaptive applies to SLIDING_PANES"
            + " windows only; this is SLIDING_LOG");
    assertThat(first("""
        stats:
          amounts:
            kind: exact
            window: 1m
            adaptive: { minPanes: 1 }
        """)).startsWith("windowpane.yaml:5: stats.amounts: adaptive applies to histogram");
    assertThat(first("""
        counters:
          pay:
            window: 1m
            adaptive: { min: 1 }
        """)).startsWith("windowpane.yaml:4: counters.pay.adaptive.min: unknown key");
  }

  @Test
  void load_wrongType_namesValueAndLine() {
    assertThat(first("""
        limiters:
          api:
            - window: 1s
              permits: ten
        """)).isEqualTo("windowpane.yaml:4: limiters.api[0].permits must be a whole number,"
            + " was 'ten'");
  }

  @Test
  void load_permitsOutOfRange_isTheContractsMessage() {
    assertThat(first("""
        limiters:
          api:
            - window: 1s
              permits: 0
        """)).isEqualTo(
            "windowpane.yaml:4: limiters.api[0].permits must be 1 to 1099511627775, was 0");
  }

  @Test
  void load_logPermitsAboveLogBound_saysWhy() {
    assertThat(first("""
        counters: {}
        limiters:
          api:
            - {window: 1s, algorithm: log, permits: 2000000}
        """)).isEqualTo("windowpane.yaml:4: limiters.api[0].permits must be 1 to 1048576 with"
            + " algorithm log (its memory grows with permits), was 2000000");
  }

  @Test
  void load_missingWindow_reportedAtTheLimit() {
    assertThat(first("""
        limiters:
          api:
            - permits: 10
            - permits: 20
              window: 1m
        """)).isEqualTo(
            "windowpane.yaml:3: limiters.api[0].window is required, e.g. window: 1m");
  }

  @Test
  void load_missingPermits_reportedAtTheLimit() {
    assertThat(first("""
        limiters:
          api:
            - name: x
              window: 1s
        """)).isEqualTo(
            "windowpane.yaml:3: limiters.api[0].permits is required, e.g. permits: 10");
  }

  @Test
  void load_windowTooLong_namesRange() {
    assertThat(first("counters:\n  c:\n    window: 400d\n"))
        .isEqualTo("windowpane.yaml:3: counters.c.window must be 1ms to 366d, was 400d");
  }

  @Test
  void load_bareNumberDuration_saysToAddAUnit() {
    assertThat(first("counters:\n  c:\n    window: 10\n"))
        .isEqualTo("windowpane.yaml:3: counters.c.window must be a duration with a unit, e.g."
            + " 10s or 10ms: add a unit (ms, s, m, h or d) to 10");
  }

  @Test
  void load_panesWithLogOrWeighted_isAnError() {
    ConfigException e = problem("""
        limiters:
          api:
            - {permits: 1, window: 1s, algorithm: log, panes: 10}
        counters:
          c:
            window: 1s
            algorithm: weighted
            panes: 10
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:3: limiters.api[0].panes applies to algorithm panes only; remove it or\
         set algorithm: panes
        windowpane.yaml:8: counters.c.panes applies to algorithm panes only; remove it or set\
         algorithm: panes""");
  }

  @Test
  void load_histogramOptionsOnExact_eachAnError() {
    ConfigException e = problem("""
        stats:
          s:
            kind: exact
            window: 1m
            panes: 6
            accuracy: 0.01
            trackedRange: [1, 2]
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:5: stats.s.panes applies to kind histogram only; remove it or set kind:\
         histogram
        windowpane.yaml:6: stats.s.accuracy applies to kind histogram only; remove it or set\
         kind: histogram
        windowpane.yaml:7: stats.s.trackedRange applies to kind histogram only; remove it or set\
         kind: histogram""");
  }

  @Test
  void load_maxValuesOnHistogram_isAnError() {
    assertThat(first("stats:\n  s:\n    window: 1m\n    maxValues: 10\n"))
        .isEqualTo("windowpane.yaml:4: stats.s.maxValues applies to kind exact only; remove it"
            + " or set kind: exact");
  }

  @Test
  void load_statsRanges_areChecked() {
    ConfigException e = problem("""
        stats:
          a: {window: 1m, accuracy: 0.5}
          b: {window: 1m, trackedRange: [1]}
          c: {kind: exact, window: 1m, maxValues: 0}
          d: {kind: median, window: 1m}
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:2: stats.a.accuracy must be 0.001 to 0.2 (0.01 is 1%), was 0.5
        windowpane.yaml:3: stats.b.trackedRange must be two numbers [smallest, largest\
         magnitude], e.g. [1e-9, 1e15], was a list of 1
        windowpane.yaml:4: stats.c.maxValues must be 1 to 1000000, was 0
        windowpane.yaml:5: stats.d.kind must be one of histogram, exact; was 'median'""");
  }

  @Test
  void load_coreFactoryError_isWrappedWithPathAndLine() {
    assertThat(first("""
        limiters:
          api:
            - permits: 10
              window: 1s
              panes: 7
        """)).isEqualTo("windowpane.yaml:5: limiters.api[0]: panes must divide the window length"
            + " (1000 ms) into whole milliseconds, was 7");
  }

  @Test
  void load_coreDefaultPanesError_blamesTheWindow() {
    assertThat(first("counters:\n  c:\n    window: 15ms\n"))
        .isEqualTo("windowpane.yaml:3: counters.c: panes must divide the window length (15 ms)"
            + " into whole milliseconds, was 10");
  }

  @Test
  void load_coreQuotaError_blamesTheLimiter() {
    ConfigException e = problem("""
        limiters:
          wide:
            - {permits: 10, window: 1s, panes: 1000}
            - {permits: 10, window: 2h, panes: 1}
        """);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.problem()).startsWith("limiters.wide: limits must have resolutions within 1/");
  }

  @Test
  void load_coreTrackedRangeError_blamesTheRange() {
    ConfigException e = problem("stats:\n  s:\n    window: 1m\n    trackedRange: [1e9, 1e-3]\n");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.problem()).startsWith("stats.s: tracked range must satisfy");
  }

  @Test
  void load_badNumberInRange_namesTheItem() {
    assertThat(first("stats:\n  s:\n    window: 1m\n    trackedRange: [1, lots]\n"))
        .isEqualTo("windowpane.yaml:4: stats.s.trackedRange[1] must be a number, was 'lots'");
  }

  @Test
  void load_duplicateName_reportedAtTheSecond() {
    assertThat(first("""
        counters:
          hits:
            window: 1s
          hits:
            window: 2s
        """)).isEqualTo("windowpane.yaml:4: counters.hits is given twice (first at line 2)");
  }

  @Test
  void load_duplicateLimitNames_areAnError() {
    assertThat(first("""
        limiters:
          api:
            - {name: a, permits: 1, window: 1s}
            - {name: a, permits: 5, window: 1m}
        """)).isEqualTo("windowpane.yaml:4: limiters.api[1]: the limit name 'a' is also the name"
            + " of limiters.api[0]; give each limit its own name");
  }

  @Test
  void load_badName_isAnError() {
    assertThat(first("counters:\n  \"my counter\": {window: 1s}\n"))
        .isEqualTo("windowpane.yaml:2: counters: the name 'my counter' must be 1 to 64"
            + " characters of [A-Za-z0-9_.:-]");
  }

  @Test
  void load_limiterNotAList_orEmpty_orTooLong() {
    ConfigException e = problem("""
        limiters:
          a:
            permits: 1
            window: 1s
          b: []
          c: [{permits: 1, window: 1s}, {permits: 1, window: 2s}, {permits: 1, window: 3s},
              {permits: 1, window: 4s}, {permits: 1, window: 5s}, {permits: 1, window: 6s},
              {permits: 1, window: 7s}, {permits: 1, window: 8s}, {permits: 1, window: 9s}]
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:3: limiters.a must be a list, e.g. [ { permits: 10, window: 1s } ] or\
         lines of '- permits: 10', was a mapping
        windowpane.yaml:5: limiters.b must hold 1 to 8 limits, was 0
        windowpane.yaml:6: limiters.c must hold 1 to 8 limits, was 9""");
  }

  @Test
  void load_limitNotAMapping_reportedOnce() {
    assertThat(problem("limiters:\n  a:\n    - 10/1s\n").getMessage())
        .isEqualTo("windowpane.yaml:3: limiters.a[0] must be a mapping (key: value lines), was"
            + " '10/1s'");
  }

  @Test
  void load_badAlgorithm_listsTheChoices() {
    assertThat(first("counters:\n  c: {window: 1s, algorithm: fixed}\n"))
        .isEqualTo("windowpane.yaml:2: counters.c.algorithm must be one of panes, log, weighted;"
            + " was 'fixed'");
  }

  @Test
  void load_emptyFile_isAnErrorWithoutLine() {
    for (String empty : new String[] {"", "# only a comment\n", "---\n"}) {
      ConfigException e = problem(empty);
      assertThat(e.line()).isZero();
      assertThat(e.getMessage()).startsWith("windowpane.yaml: the file is empty");
    }
  }

  @Test
  void load_topLevelNotAMapping_isAnError() {
    assertThat(first("- a\n- b\n")).isEqualTo("windowpane.yaml:1: the top level must be a"
        + " mapping (key: value lines), was a list");
  }

  @Test
  void load_mergeKeys_areRefused() {
    assertThat(first("""
        base: &base {window: 1s}
        """).startsWith("windowpane.yaml:1: base: unknown key")).isTrue();
    assertThat(first("""
        counters:
          a: &w {window: 1s}
          b:
            <<: *w
        """)).isEqualTo("windowpane.yaml:4: merge keys (<<) are not supported: write each value"
            + " out");
  }
}
