package io.windowpane.server;

import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code windowpane serve}: runs the service until SIGINT or SIGTERM, then stops gracefully. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Serves the HTTP JSON API (docs/server.md) until stopped with Ctrl-C or SIGTERM.",
        "With no --config: the in-process engine, a limiter 'demo' (2 per 10 seconds),",
        "a counter 'requests' (1 minute) and statistics 'latency' (1 minute, 1%%).",
        "--redis and --etcd replace the file's engine; --fallback local adds the",
        "in-process engine after them (or after the file's). Two engines or more make",
        "a failover chain, tried in the order redis -> etcd -> local.",
        "Command-line options override the configuration file."})
final class ServeCommand implements Callable<Integer> {

  @Option(names = "--host", paramLabel = "HOST",
      description = "address to listen on (default: the file's, else 127.0.0.1)")
  String host;

  @Option(names = "--port", paramLabel = "PORT",
      description = "port to listen on, 0 for any free port (default: the file's, else 8080)")
  Integer port;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "YAML configuration: limiters, counters, statistics, engine, tokens")
  Path config;

  @Option(names = "--redis", paramLabel = "URI",
      description = "use the Redis engine at this URI (redis://[user:password@]host:port[/db] "
          + "or rediss://...) instead of the file's engine")
  String redis;

  @Option(names = "--etcd", paramLabel = "URL", split = ",",
      description = "use the etcd engine at these client URLs (http://host:port[,...]) "
          + "instead of the file's engine")
  List<String> etcd;

  @Option(names = "--fallback", paramLabel = "ENGINE",
      description = "'local': add the in-process engine as the last fallback of the chain; "
          + "the chain takes the file's engine.failover and engine.onFailure")
  String fallback;

  @Option(names = "--token-file", paramLabel = "FILE",
      description = "require one of the tokens in FILE (one per line) as "
          + "'Authorization: Bearer <token>' on /v1 and /metrics")
  Path tokenFile;

  @Option(names = "--grpc-port", paramLabel = "PORT",
      description = "also serve Envoy's rate limit service (gRPC, RLS v3) on this port, on the"
          + " same host, with the rules of --rls-config (default: the file's rls, else off)")
  Integer grpcPort;

  @Option(names = "--rls-config", paramLabel = "PATH",
      description = "envoyproxy/ratelimit rules: a YAML file or a directory of them"
          + " (docs/envoy.md)")
  Path rlsConfig;

  @Option(names = "--rlqs-port", paramLabel = "PORT",
      description = "also serve Envoy's rate limit quota service (gRPC, RLQS v3) on this port,"
          + " on the same host, with the buckets of --rlqs-config (default: the file's rlqs,"
          + " else off)")
  Integer rlqsPort;

  @Option(names = "--rlqs-config", paramLabel = "PATH",
      description = "RLQS buckets: a YAML file or a directory of them (docs/envoy.md)")
  Path rlqsConfig;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    ServerConfig settings;
    try {
      settings = config == null ? ServerConfig.defaults() : ServerConfig.load(config);
      if (tokenFile != null) {
        settings = settings.withTokens(ServerConfig.readTokensFile(tokenFile));
      }
      if (host != null) {
        settings = settings.withHost(host);
      }
      if (port != null) {
        settings = settings.withPort(port);
      }
      if (fallback != null && !fallback.equals("local")) {
        throw new IllegalArgumentException("fallback (--fallback) must be local (the"
            + " in-process engine), was '" + fallback + "'");
      }
      if (redis != null || etcd != null || fallback != null) {
        settings = settings.withEngines(redis, etcd, fallback != null);
      }
      if (grpcPort != null || rlsConfig != null) {
        settings = settings.withRls(grpcPort, rlsConfig);
      }
      if (rlqsPort != null || rlqsConfig != null) {
        settings = settings.withRlqs(rlqsPort, rlqsConfig);
      }
      if (settings.rlqsConfig().isPresent()) {
        io.windowpane.server.internal.rlqs.RlqsConfig.load(settings.rlqsConfig().get());
      }
      if (settings.rlsConfig().isPresent()) {
        io.windowpane.server.internal.rls.RlsConfig.load(settings.rlsConfig().get());
      }
    } catch (ConfigException | IllegalArgumentException e) {
      err.println("windowpane: " + e.getMessage());
      return 2;
    }
    WindowpaneServer server;
    try {
      server = WindowpaneServer.start(settings);
    } catch (RuntimeException e) {
      err.println("windowpane: could not start on " + settings.host() + ":" + settings.port()
          + " with " + settings.engine().describe() + ": " + e.getMessage()
          + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""));
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    PrintWriter out = spec.commandLine().getOut();
    ServerConfig served = settings;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      out.println("windowpane stopping: finishing requests in flight (at most "
          + served.shutdownTimeout().toSeconds() + " s)");
      out.flush();
      server.close();
      out.println("windowpane stopped");
      out.flush();
      stopped.countDown();
    }, "windowpane-shutdown"));
    out.println("windowpane " + Main.version() + " serving " + server.url() + " ("
        + summary(settings) + ")");
    server.grpcPort().ifPresent(p -> out.println("envoy rate limit service (gRPC) on "
        + served.host() + ":" + p + ", rules from " + served.rlsConfig().orElseThrow()));
    server.rlqsPort().ifPresent(p -> out.println("envoy rate limit quota service (gRPC) on "
        + served.host() + ":" + p + ", buckets from " + served.rlqsConfig().orElseThrow()));
    served.limiters().keySet().stream().findFirst().ifPresent(name -> out.println(
        "try: curl -s -w ' HTTP %{http_code}\\n'"
            + (served.tokens().isEmpty() ? "" : " -H 'Authorization: Bearer <token>'")
            + " -d '{\"key\":\"alice\"}' " + server.url() + "/v1/limiters/" + name + "/acquire"));
    out.flush();
    stopped.await();
    return 0;
  }

  /** One line: engine and names, e.g. {@code engine local; limiters demo; counters ...}. */
  static String summary(ServerConfig config) {
    return "engine " + config.engine().describe()
        + "; limiters " + names(config.limiters().keySet())
        + "; counters " + names(config.counters().keySet())
        + "; stats " + names(config.stats().keySet())
        + (config.tokens().isEmpty() ? "; no tokens" : "; " + config.tokens().size() + " tokens");
  }

  private static String names(java.util.Set<String> names) {
    return names.isEmpty() ? "none" : String.join(", ", names);
  }
}
