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
        .contains("--host", "--port", "--config", "--redis", "--token-file", "127.0.0.1", "8080");
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
  void serve_unreachableRedis_exits1WithTheReason() {
    assertThat(run("serve", "--port", "0", "--redis", "redis://127.0.0.1:1")).isEqualTo(1);
    assertThat(err.toString()).contains("could not start", "redis");
  }
}
