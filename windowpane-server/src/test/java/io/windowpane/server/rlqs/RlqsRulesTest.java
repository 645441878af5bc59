package io.windowpane.server.rlqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.server.internal.rlqs.RlqsConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RLQS buckets file and the server configuration's {@code rlqs} section. */
class RlqsRulesTest {

  @TempDir
  Path dir;

  static String problem(String yaml) {
    try {
      RlqsConfig.parse(yaml, "b.yaml");
    } catch (ConfigException e) {
      return e.getMessage();
    }
    throw new AssertionError("loaded: " + yaml);
  }

  static String bucket(String extra) {
    return "domain: edge\nbuckets:\n  - name: x\n    match: {k: v}\n"
        + "    limit: {permits: 10, window: 1m}\n" + extra;
  }

  @Test
  void validFile_loadsItsDomainAndBuckets() throws Exception {
    RlqsConfig c = RlqsConfig.parse(EnvoyRlqsTest.BUCKETS, "b.yaml");
    assertThat(c.domains()).containsExactly("edge");
    assertThat(c.bucketNames()).containsExactly("checkout", "large", "small", "tenants", "tokens");
  }

  @Test
  void badFiles_areRefusedNamingTheFileAndField() {
    assertThat(problem("buckets: []")).contains("b.yaml").contains("domain must not be empty");
    assertThat(problem("domain: edge\nbuckets: []"))
        .contains("buckets must be a list of at least one bucket");
    assertThat(problem(bucket("    color: red\n"))).contains("unknown key 'buckets[0].color'");
    assertThat(problem(bucket("").replace("name: x", "name: 'a b'")))
        .contains("buckets[0].name must be 1 to 48 characters");
    assertThat(problem(bucket("").replace("permits: 10", "permits: 0")))
        .contains("buckets[0].limit.permits must be an integer from 1 to");
    assertThat(problem(bucket("").replace("window: 1m", "window: soon")))
        .contains("buckets[0].limit.window must be a duration");
    assertThat(problem(bucket("").replace("window: 1m", "window: 1m, panes: 7")))
        .contains("buckets[0].limit:");
    assertThat(problem(bucket("").replace("window: 1m", "window: 1m, algorithm: fixed")))
        .contains("algorithm must be panes, log or weighted, was 'fixed'");
    assertThat(problem(bucket("    assignmentTtl: 500ms\n")))
        .contains("buckets[0].assignmentTtl must be a duration from 1000ms to 3600000ms");
    assertThat(problem(bucket("    strategy: leaky\n")))
        .contains("strategy must be requestsPerTimeUnit or tokenBucket, was 'leaky'");
    assertThat(problem(bucket("  - name: x\n    match: {k: w}\n    limit: {permits: 1,"
        + " window: 1s}\n"))).contains("duplicate bucket name 'x'");
    assertThat(problem(bucket("").replace("{k: v}", "{}"))).contains("match must hold 1 to 16");
  }

  @Test
  void serverConfig_rlqsSection_needsPortAndBuckets_andCheckConfigReadsTheBuckets()
      throws Exception {
    assertThatThrownBy(() -> ServerConfig.parse("rlqs:\n  grpcPort: 0\n", "s.yaml"))
        .hasMessageContaining("rlqs needs grpcPort and config");
    Path buckets = Files.writeString(dir.resolve("buckets.yaml"), EnvoyRlqsTest.BUCKETS);
    Path config = Files.writeString(dir.resolve("server.yaml"),
        "rlqs:\n  grpcPort: 18099\n  config: buckets.yaml\n");
    ServerConfig c = ServerConfig.load(config);
    assertThat(c.rlqsPort().getAsInt()).isEqualTo(18099);
    assertThat(c.rlqsConfig()).contains(buckets.toAbsolutePath());
    assertThatThrownBy(() -> ServerConfig.defaults().withRlqs(70_000, buckets))
        .hasMessageContaining("rlqs port (--rlqs-port) must be 0 to 65535, was 70000");

    StringWriter out = new StringWriter();
    int code = new picocli.CommandLine(new io.windowpane.server.Main())
        .setOut(new PrintWriter(out)).execute("check-config", config.toString());
    assertThat(code).isZero();
    assertThat(out.toString())
        .contains("rlqs domains edge (buckets checkout, large, small, tenants, tokens)");

    Files.writeString(buckets, "domain: edge\nbuckets: nope\n");
    StringWriter err = new StringWriter();
    assertThat(new picocli.CommandLine(new io.windowpane.server.Main())
        .setErr(new PrintWriter(err)).execute("check-config", config.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("buckets must be a list of at least one bucket");
  }
}
