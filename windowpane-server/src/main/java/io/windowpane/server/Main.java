package io.windowpane.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code windowpane} command: {@code serve}, {@code check-config}, {@code demo}. Exit codes:
 * 0 done, 1 the service failed (e.g. Redis unreachable at start), 2 bad usage or configuration.
 */
@Command(name = "windowpane",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
        "Sliding-window rate limits, counters and statistics as a small HTTP service.",
        "",
        "Run `windowpane serve` for the service on the in-process engine at",
        "http://127.0.0.1:8080, or `windowpane serve --redis redis://host:6379` to share",
        "state through Redis. Documentation: docs/server.md."},
    subcommands = {ServeCommand.class, CheckConfigCommand.class, DemoCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, for tests: {@code commandLine().execute(args)} runs without exiting. */
  static CommandLine commandLine() {
    return new CommandLine(new Main())
        .setExecutionExceptionHandler((e, cmd, parsed) -> {
          cmd.getErr().println("windowpane: " + e.getMessage());
          return 1;
        });
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version from the build. */
  static String version() {
    try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"windowpane " + version()};
    }
  }
}
