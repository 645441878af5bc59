package io.windowpane.server.rls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.internal.rls.RlsConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** envoyproxy/ratelimit's configuration format: what loads, and what is refused and how. */
class RlsConfigTest {

  @Test
  void directory_loadsEveryYamlFileRecursively_skippingDotFiles() throws Exception {
    assertThat(RlsConfig.load(EnvoyRlsTest.rules()).domains()).containsExactlyInAnyOrder(
        "edge_proxy_per_ip", "messaging", "example6", "example7", "example9");
  }

  @Test
  void duplicateDomainAcrossFiles_refused(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("a.yaml"), "domain: d\n");
    Files.writeString(dir.resolve("b.yml"), "domain: d\n");
    assertThatThrownBy(() -> RlsConfig.load(dir)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("b.yml").hasMessageContaining("duplicate domain 'd'");
  }

  @Test
  void missingPath_refused(@TempDir Path dir) {
    assertThatThrownBy(() -> RlsConfig.load(dir.resolve("none")))
        .hasMessageContaining("no such file or directory");
  }

  @Test
  void everyProblem_namesTheField() {
    refused("domain: \"\"\n", "domain must not be empty");
    refused("domain: d\nfoo: 1\n", "unknown key 'foo'");
    refused("domain: d\ndescriptors:\n  - key: k\n    unit: second\n",
        "unknown key 'descriptors[0].unit'");
    refused("domain: d\ndescriptors:\n  - value: v\n", "descriptors[0].key must not be empty");
    refused("domain: d\ndescriptors:\n  - key: k\n  - key: k\n",
        "descriptors[1]: duplicate descriptor composite key 'd.k'");
    refused(rule("unit: sec\n      requests_per_unit: 1"),
        "descriptors[0].rate_limit.unit must be second, minute, hour, day, week, month or year,"
            + " was 'sec'");
    refused(rule("unlimited: true\n      unit: second"),
        "rate_limit.unit must not be given when unlimited is true");
    refused(rule("unit: second\n      requests_per_unit: -1"),
        "requests_per_unit must be an integer from 0 to 4294967295");
    refused(rule("unit: second\n      requests_per_unit: 1\n      name: a\n"
        + "      replaces: [ { name: a } ]"), "replaces[0].name must not name its own rule");
    refused(rule("unit: second\n      requests_per_unit: 1\n      replaces: [ { name: \"\" } ]"),
        "replaces[0].name must not be empty");
    refused(rule("unit: second\n      requests_per_unit: 1\n      algorithm: fixed"),
        "rate_limit.algorithm must be panes, log or weighted, was 'fixed'");
    refused("domain: d\ndescriptors:\n  - key: k\n    value: v\n    share_threshold: true\n",
        "share_threshold needs a wildcard value");
    refused("domain: d\ndescriptors:\n  - key: k\n    quota_mode: true\n",
        "descriptors[0].quota_mode is not supported");
    refused("domain: d\ndescriptors:\n  - key: k\n    metadata: { a: b }\n",
        "descriptors[0].metadata is not supported");
    refused("domain: d\ndescriptors:\n  - key: k\n    shadow_mode: yes please\n",
        "descriptors[0].shadow_mode must be true or false");
    refused("domain: [ d\n", "not valid YAML");
  }

  @Test
  void serverConfig_rlsSection_andOverrides(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> ServerConfig.parse("rls:\n  grpcPort: 1\n", "t.yaml"))
        .hasMessageContaining("rls needs grpcPort and config");
    assertThatThrownBy(() -> ServerConfig.defaults().withRls(8081, null))
        .hasMessageContaining("needs both --grpc-port");
    assertThatThrownBy(() -> ServerConfig.defaults().withRls(70000, dir))
        .hasMessageContaining("must be 0 to 65535, was 70000");
    ServerConfig c = ServerConfig.defaults().withRls(8081, dir);
    assertThat(c.grpcPort()).hasValue(8081);
    assertThat(c.rlsConfig()).hasValue(dir);
    assertThat(c.withPort(9000).grpcPort()).hasValue(8081);
  }

  private static String rule(String body) {
    return "domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      " + body + "\n";
  }

  private static void refused(String yaml, String message) {
    assertThatThrownBy(() -> RlsConfig.parse(yaml, "r.yaml"))
        .as(yaml).isInstanceOf(ConfigException.class).hasMessageContaining(message);
  }
}
