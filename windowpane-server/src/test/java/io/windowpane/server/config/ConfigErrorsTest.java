package io.windowpane.server.config;

import io.windowpane.config.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every class of problem in a configuration file is reported with the file, the exact line and
 * the path of the offending value.
 */
class ConfigErrorsTest {

  static ConfigException problem(String yaml) {
    ConfigException e = catchThrowableOfType(
        () -> ServerConfig.parse(yaml, "windowpane.yaml"), ConfigException.class);
    assertThat(e).as("a ConfigException for:\n" + yaml).isNotNull();
    return e;
  }

  /** The first line of the message, which must agree with file(), line() and problem(). */
  static String first(String yaml) {
    ConfigException e = problem(yaml);
    String first = e.getMessage().split("\n")[0];
    assertThat(first).isEqualTo(e.file() + ":" + e.line() + ": " + e.problem());
    return first;
  }

  @Test
  void load_unknownKey_namesKeyPathLineAndAllowedKeys() {
    assertThat(first("""
        server:
          host: 127.0.0.1
          prot: 8080
        """)).isEqualTo("windowpane.yaml:3: server.prot: unknown key; server takes host, port,"
            + " maxBodyBytes, maxKeyLength, maxBatch, shutdownTimeout, topKeys, reloadInterval");
  }

  @Test
  void load_unknownTopLevelKey_namesKeyAndLine() {
    assertThat(first("""
        server:
          port: 1
        limiter:
          api: []
        """)).isEqualTo("windowpane.yaml:3: limiter: unknown key; the top level takes server,"
            + " auth, engine, limiters, counters, stats, rls, rlqs, tracing");
  }

  @Test
  void load_portOutOfRange_namesRange() {
    assertThat(first("server:\n  port: 70000\n"))
        .isEqualTo("windowpane.yaml:2: server.port must be 0 to 65535, was 70000");
  }

  @Test
  void load_serverRanges_eachNamed() {
    ConfigException e = problem("""
        server:
          maxBodyBytes: 63
          maxKeyLength: 257
          maxBatch: 0
          shutdownTimeout: 6m
          host: "a b"
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:2: server.maxBodyBytes must be 64 to 16777216, was 63
        windowpane.yaml:3: server.maxKeyLength must be 1 to 256, was 257
        windowpane.yaml:4: server.maxBatch must be 1 to 10000, was 0
        windowpane.yaml:5: server.shutdownTimeout must be 0s to 5m, was 6m
        windowpane.yaml:6: server.host must be a host name or IP address (no spaces, '/', '@',\
         '?' or '#'), was 'a b'""");
  }

  @Test
  void load_malformedDuration_showsTheForm() {
    assertThat(first("server:\n  shutdownTimeout: 1.5s\n"))
        .isEqualTo("windowpane.yaml:2: server.shutdownTimeout must be a duration: a whole number"
            + " and a unit (ms, s, m, h or d), e.g. 500ms, 10s, 5m, or ISO-8601 such as PT10S;"
            + " was '1.5s'");
  }

  @Test
  void load_duplicateSection_reportedAtTheSecond() {
    assertThat(first("server:\n  port: 1\nserver:\n  port: 2\n"))
        .isEqualTo("windowpane.yaml:3: server is given twice (first at line 1)");
  }

  @Test
  void load_severalProblems_allReportedFirstOneFirst() {
    ConfigException e = problem("""
        server:
          port: -1
        limiters:
          api:
            - permits: ten
              window: 1s
        counters:
          c:
            window: 10
        """);
    assertThat(e.file()).isEqualTo("windowpane.yaml");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.problem()).isEqualTo("server.port must be 0 to 65535, was -1");
    assertThat(e.getMessage().split("\n")).hasSize(3);
    assertThat(e.getMessage().split("\n")[1]).startsWith("windowpane.yaml:5: limiters.api[0]");
    assertThat(e.getMessage().split("\n")[2]).startsWith("windowpane.yaml:9: counters.c.window");
  }

  @Test
  void load_multipleDocuments_isAnError() {
    assertThat(first("server:\n  port: 1\n---\nserver:\n  port: 2\n"))
        .isEqualTo("windowpane.yaml:4: the file holds more than one YAML document (---): put"
            + " the whole configuration in one");
  }

  @Test
  void load_invalidYaml_namesTheLine() {
    ConfigException e = problem("server:\n  port: 1\n  host: [unclosed\n");
    assertThat(e.file()).isEqualTo("windowpane.yaml");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.problem()).startsWith("not valid YAML: ");
  }

  @Test
  void load_globalTypeTag_isRefused() {
    assertThat(first("""
        server:
          host: !!java.io.File /tmp
        """)).isEqualTo("windowpane.yaml:2: the tag tag:yaml.org,2002:java.io.File is not"
            + " allowed: the configuration holds plain strings, numbers, lists and mappings only");
  }

  @Test
  void load_localAndNonScalarTags_areRefused() {
    ConfigException e = problem("""
        server:
          host: !!binary aGVsbG8=
        counters:
          c: !custom {window: 1s}
        """);
    assertThat(e.getMessage()).isEqualTo("""
        windowpane.yaml:2: the tag tag:yaml.org,2002:binary is not allowed: the configuration\
         holds plain strings, numbers, lists and mappings only
        windowpane.yaml:4: the tag !custom is not allowed: the configuration holds plain\
         strings, numbers, lists and mappings only""");
  }

  @Test
  void load_standardScalarTags_areAccepted() throws Exception {
    ServerConfig c = ServerConfig.parse("server:\n  host: !!str localhost\n  port: !!int 81\n",
        "x");
    assertThat(c.host()).isEqualTo("localhost");
    assertThat(c.port()).isEqualTo(81);
  }

  @Test
  void load_emptyAuth_failsClosed() {
    assertThat(first("auth:\n")).isEqualTo("windowpane.yaml:1: auth needs tokens or tokensFile;"
        + " remove auth to run without tokens");
    assertThat(first("auth:\n  tokens: []\n")).isEqualTo("windowpane.yaml:2: auth.tokens must"
        + " hold at least one token; remove auth to run without tokens");
  }

  @Test
  void load_missingFile_namesFileWithoutLine(@TempDir Path dir) {
    Path missing = dir.resolve("nope.yaml");
    ConfigException e = catchThrowableOfType(() -> ServerConfig.load(missing),
        ConfigException.class);
    assertThat(e.getMessage()).isEqualTo(missing + ": cannot read the configuration: no such"
        + " file");
    assertThat(e.file()).isEqualTo(missing.toString());
    assertThat(e.line()).isZero();
  }
}
