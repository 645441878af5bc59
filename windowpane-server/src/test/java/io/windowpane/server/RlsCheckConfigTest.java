package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code check-config} checks the Envoy rate limit service's rules named by {@code rls}. */
class RlsCheckConfigTest {

  @Test
  void checkConfig_readsTheRlsRules_andNamesABadRule(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("rules.yaml"), "domain: messaging\n");
    Files.writeString(dir.resolve("w.yaml"), "rls:\n  grpcPort: 8081\n  config: rules.yaml\n");
    StringWriter out = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("check-config", dir.resolve("w.yaml").toString())).isZero();
    assertThat(out.toString()).contains("rls domains messaging");

    Files.writeString(dir.resolve("rules.yaml"), "domain: messaging\nunits: 1\n");
    StringWriter err = new StringWriter();
    cli = Main.commandLine();
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("check-config", dir.resolve("w.yaml").toString())).isEqualTo(2);
    assertThat(err.toString()).contains("rules.yaml").contains("unknown key 'units'");
  }
}
