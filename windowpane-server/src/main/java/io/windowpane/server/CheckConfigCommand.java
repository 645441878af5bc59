package io.windowpane.server;

import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code windowpane check-config FILE}: validates a configuration file without serving. */
@Command(name = "check-config", mixinStandardHelpOptions = true,
    description = "Checks a configuration file and prints what it configures, or each problem "
        + "with its file and line. Exit code 0 when valid, 2 when not.")
final class CheckConfigCommand implements Callable<Integer> {

  @Parameters(paramLabel = "FILE", description = "the YAML configuration file")
  Path file;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    try {
      ServerConfig config = ServerConfig.load(file);
      String rls = "";
      if (config.rlsConfig().isPresent()) { // Envoy's rate limit service: its rules too
        rls = "; rls domains " + String.join(", ", io.windowpane.server.internal.rls.RlsConfig
            .load(config.rlsConfig().get()).domains());
      }
      if (config.rlqsConfig().isPresent()) { // the rate limit quota service: its buckets too
        io.windowpane.server.internal.rlqs.RlqsConfig buckets =
            io.windowpane.server.internal.rlqs.RlqsConfig.load(config.rlqsConfig().get());
        rls += "; rlqs domains " + String.join(", ", buckets.domains()) + " (buckets "
            + String.join(", ", buckets.bucketNames()) + ")";
      }
      spec.commandLine().getOut().println(file + ": valid; " + ServeCommand.summary(config)
          + rls);
      return 0;
    } catch (ConfigException e) {
      spec.commandLine().getErr().println(e.getMessage());
      return 2;
    }
  }
}
