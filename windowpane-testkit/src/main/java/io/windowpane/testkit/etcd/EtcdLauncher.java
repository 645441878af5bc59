package io.windowpane.testkit.etcd;

import io.windowpane.testkit.process.ServerBinary;
import io.windowpane.testkit.process.ServerProcess;
import io.windowpane.testkit.process.TestBinaries;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Starts and stops single-member {@code etcd} processes for {@link EtcdServer}. Stateless and
 * thread-safe: concurrent starts get distinct ports and directories.
 */
final class EtcdLauncher {

  /*
   * Design note. Two free ports (client and peer) are found by binding 127.0.0.1:0 twice while
   * both sockets are open, then closing them; another process may take one before etcd binds it,
   * so a launch that dies with "address already in use" is retried on fresh ports, up to
   * BIND_ATTEMPTS times. Readiness is GET /health answering {"health":"true"} (a leader is elected
   * and a quorum read succeeded), and the answering cluster must be ours: its member list must
   * carry our peer URL, so an etcd that won the race for the client port is never mistaken for
   * ours. The child gets no ETCD_* variables from our environment (etcd 3.4 refuses flags that an
   * environment variable shadows) and, on arm64, the ETCD_UNSUPPORTED_ARCH that etcd 3.4 demands.
   * Output goes to a log file next to the data directory; its tail goes into every failure
   * message. A JVM shutdown hook stops the process if nobody closes the handle.
   */

  static final String HOST = ServerProcess.HOST;
  static final ServerBinary BINARY = TestBinaries.ETCD;
  static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  private static final long POLL_MILLIS = 25;
  private static final int BIND_ATTEMPTS = 5;
  /** The failure of a launch that lost the race for a port; retried on other ports. */
  private static final String PORT_TAKEN = "port taken";
  private static final Pattern HEALTHY = Pattern.compile("\"health\"\\s*:\\s*\"true\"");

  private EtcdLauncher() {}

  /**
   * Starts a single-member cluster and returns once it reports healthy.
   *
   * @throws IllegalStateException if the binary is missing, the process exits or is not healthy
   *     within {@link #STARTUP_TIMEOUT}; the message carries the tail of the server's output
   */
  static EtcdServer start() {
    Path binary = BINARY.locate();
    HttpClient http = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
    String lastOutput = "";
    for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
      Launch launch = launch(binary);
      Optional<String> failure = launch.awaitReady(http);
      if (failure.isEmpty()) {
        return new EtcdServer(launch.clientPort, launch.peerPort, launch.process, launch.dir,
            launch.hook);
      }
      lastOutput = launch.abort();
      if (!failure.get().equals(PORT_TAKEN)) {
        throw new IllegalStateException(failure.get() + "; command: " + launch.command
            + "; last output of etcd:\n" + lastOutput);
      }
    }
    throw new IllegalStateException("etcd could not bind free ports on " + HOST + " in "
        + BIND_ATTEMPTS + " attempts; last output:\n" + lastOutput);
  }

  private static Launch launch(Path binary) {
    Path dir = null;
    try {
      int[] ports = ServerProcess.freePorts(2);
      int clientPort = ports[0];
      int peerPort = ports[1];
      dir = ServerProcess.scratchDirectory("windowpane-etcd-");
      String clientUrl = "http://" + HOST + ":" + clientPort;
      String peerUrl = "http://" + HOST + ":" + peerPort;
      List<String> command = List.of(binary.toString(), "--name", "default",
          "--data-dir", dir.resolve("data").toString(),
          "--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl,
          "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
          "--initial-cluster", "default=" + peerUrl, "--initial-cluster-state", "new");
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(dir.resolve("etcd.log").toFile());
      Map<String, String> env = builder.environment();
      env.keySet().removeIf(name -> name.startsWith("ETCD_"));
      if (System.getProperty("os.arch", "").equals("aarch64")) {
        env.put("ETCD_UNSUPPORTED_ARCH", "arm64");
      }
      Process process = builder.start();
      Thread hook = ServerProcess.stopOnShutdown(process, dir, "windowpane-etcd-" + clientPort
          + "-stop");
      return new Launch(clientPort, peerPort, dir, process, hook, String.join(" ", command));
    } catch (IOException e) {
      ServerProcess.deleteRecursively(dir);
      throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
    }
  }

  /** One started, not yet ready process. */
  private static final class Launch {
    final int clientPort;
    final int peerPort;
    final Path dir;
    final Process process;
    final Thread hook;
    final String command;

    Launch(int clientPort, int peerPort, Path dir, Process process, Thread hook, String command) {
      this.clientPort = clientPort;
      this.peerPort = peerPort;
      this.dir = dir;
      this.process = process;
      this.hook = hook;
      this.command = command;
    }

    /** Empty once ready; else {@link #PORT_TAKEN} or a description of the failure. */
    Optional<String> awaitReady(HttpClient http) {
      long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
      while (true) {
        if (!process.isAlive()) {
          return Optional.of(ServerProcess.portTaken(output())
              ? PORT_TAKEN
              : "etcd exited with code " + process.exitValue() + " before reporting healthy on "
                  + HOST + ":" + clientPort);
        }
        try {
          if (isHealthyAndOurs(http)) {
            return Optional.empty();
          }
          if (System.nanoTime() - deadline > 0) {
            return Optional.of("etcd did not report {\"health\":\"true\"} on http://" + HOST + ":"
                + clientPort + "/health within " + STARTUP_TIMEOUT.toSeconds() + " s");
          }
          Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return Optional.of("interrupted while waiting for etcd on port " + clientPort);
        }
      }
    }

    private boolean isHealthyAndOurs(HttpClient http) throws InterruptedException {
      String base = "http://" + HOST + ":" + clientPort;
      try {
        HttpResponse<String> health = http.send(
            HttpRequest.newBuilder(URI.create(base + "/health")).timeout(PROBE_TIMEOUT).build(),
            HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() != 200 || !HEALTHY.matcher(health.body()).find()) {
          return false;
        }
        HttpResponse<String> members = http.send(
            HttpRequest.newBuilder(URI.create(base + "/v3/cluster/member/list"))
                .timeout(PROBE_TIMEOUT).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
            HttpResponse.BodyHandlers.ofString());
        return members.body().contains("\"http://" + HOST + ":" + peerPort + "\"");
      } catch (IOException notYet) {
        return false;
      }
    }

    /** Stops the process, removes the hook and returns the tail of its output. */
    String abort() {
      String tail = output();
      ServerProcess.stop(process, dir);
      ServerProcess.removeHook(hook);
      return tail;
    }

    private String output() {
      return ServerProcess.tail(dir.resolve("etcd.log"));
    }
  }
}
