package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code windowpane} command line: help, configuration checks, start-up failures. */
class CliTest {

  @TempDir
  Path dir;

  StringWriter out = new StringWriter();
  StringWriter err = new StringWriter();

  int run(String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void help_listsTheCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("serve", "check-config", "demo", "docs/server.md");
  }

  @Test
  void serveHelp_listsEveryOption() {
    assertThat(run("serve", "--help")).isZero();
    assertThat(out.toString())
        .contains("--host", "--port", "--config", "--redis", "--etcd", "--fallback",
            "--token-file", "127.0.0.1", "8080", "redis -> etcd -> local");
    assertThat(out.toString()).contains("(1 minute, 1%)");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void version_comesFromTheBuild() {
    assertThat(run("--version")).isZero();
    assertThat(out.toString()).startsWith("windowpane 0.").doesNotContain("unknown");
  }

  @Test
  void checkConfig_validFile_printsWhatItConfigures() throws Exception {
    Path file = Files.writeString(dir.resolve("ok.yaml"), String.join("\n",
        "limiters:",
        "  api:",
        "    - permits: 10",
        "      window: 1s",
        ""));
    assertThat(run("check-config", file.toString())).isZero();
    assertThat(out.toString()).contains("valid", "limiters api");
  }

  @Test
  void checkConfig_badFile_namesFileAndLine() throws Exception {
    Path file = Files.writeString(dir.resolve("bad.yaml"), String.join("\n",
        "limiters:",
        "  api:",
        "    - permits: 0",
        "      window: 1s",
        ""));
    assertThat(run("check-config", file.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("bad.yaml:3", "permits");
  }

  @Test
  void serve_badConfig_exits2BeforeListening() throws Exception {
    Path file = Files.writeString(dir.resolve("typo.yaml"), "server:\n  prot: 80\n");
    assertThat(run("serve", "--config", file.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("typo.yaml:2", "prot");
  }

  @Test
  void serve_badPort_exits2() {
    assertThat(run("serve", "--port", "70000")).isEqualTo(2);
    assertThat(err.toString()).contains("port");
  }

  @Test
  void checkConfig_chain_printsItsMembersInOrder() throws Exception {
    Path file = Files.writeString(dir.resolve("chain.yaml"), String.join("\n",
        "engine:",
        "  chain: [redis, etcd, local]",
        "  redis: {uri: \"redis://app:s3cret@127.0.0.1:6379\"}",
        "  etcd: {endpoints: [http://127.0.0.1:2379], user: app, password: s3cret}",
        ""));
    assertThat(run("check-config", file.toString())).isZero();
    assertThat(out.toString()).contains("valid; engine chain redis redis://127.0.0.1:6379 ->"
        + " etcd http://127.0.0.1:2379 -> local").doesNotContain("s3cret");
  }

  @Test
  void serve_badChain_exits2BeforeListening() throws Exception {
    Path file = Files.writeString(dir.resolve("chain.yaml"), String.join("\n",
        "engine:",
        "  chain: [redis, redis]",
        "  redis: {uri: redis://127.0.0.1:6379}",
        ""));
    assertThat(run("serve", "--port", "0", "--config", file.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("chain.yaml:2: engine.chain[1]: redis is also"
        + " engine.chain[0]");
  }

  @Test
  void serve_badEngineFlags_exit2NamingTheOption() {
    assertThat(run("serve", "--port", "0", "--fallback", "memcached")).isEqualTo(2);
    assertThat(err.toString()).contains("fallback (--fallback) must be local");
    assertThat(run("serve", "--port", "0", "--etcd", "http://127.0.0.1:2379,https://a:2379"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("etcd (--etcd) URL 2 is https://");
  }

  // A chain with an unreachable Redis starts on its fallback: ChainStartDuringOutageIT.

  @Test
  void serve_unreachableRedis_exits1WithTheReason() {
    assertThat(run("serve", "--port", "0", "--redis", "redis://127.0.0.1:1")).isEqualTo(1);
    assertThat(err.toString()).contains("could not start", "redis");
  }
}
