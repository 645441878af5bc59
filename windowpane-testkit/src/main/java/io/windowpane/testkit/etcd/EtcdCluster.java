package io.windowpane.testkit.etcd;

import io.windowpane.testkit.process.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running 3-member {@code etcd} cluster on {@code 127.0.0.1}, each member with its own free
 * client and peer ports and private data directory: for tests of clients that must survive
 * the loss of a member, the leader included.
 *
 * <p>Lifecycle: {@link #start()} returns once every member reports {@code {"health":"true"}}
 * (a leader is elected and a quorum read succeeds). {@link #kill(int)} stops one member with
 * SIGKILL, as a crash would (a SIGTERM would let a leader hand over leadership first);
 * {@link #close()} stops all members through their own {@link Process} handles, never by name,
 * and deletes their directories. A JVM shutdown hook does the same if the handle is never
 * closed.
 *
 * <p>Design note: members are launched at once with a static {@code --initial-cluster} naming
 * every peer URL, on ports found free by binding them all together; if any member lost the race
 * for a port ("address already in use") the whole cluster is stopped and launched again on
 * fresh ports, up to 5 times. The leader is found through each member's
 * {@code /v3/maintenance/status} (the gRPC gateway), whose {@code leader} names the member id
 * that {@code header.member_id} carries.
 *
 * <p>Thread-safe: accessors are immutable; {@link #kill} and {@link #close} are idempotent.
 */
public final class EtcdCluster implements AutoCloseable {

  /** Members of the cluster. */
  public static final int MEMBERS = 3;

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);
  private static final int LAUNCH_ATTEMPTS = 5;
  private static final Pattern HEALTHY = Pattern.compile("\"health\"\\s*:\\s*\"true\"");
  private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"(\\d+)\"");
  private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"(\\d+)\"");

  private final List<Member> members;
  private final Thread hook;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();

  private static final class Member {
    final String name;
    final int clientPort;
    final int peerPort;
    final Path dir;
    Process process;

    Member(String name, int clientPort, int peerPort, Path dir) {
      this.name = name;
      this.clientPort = clientPort;
      this.peerPort = peerPort;
      this.dir = dir;
    }

    String endpoint() {
      return "http://" + ServerProcess.HOST + ":" + clientPort;
    }

    String peerUrl() {
      return "http://" + ServerProcess.HOST + ":" + peerPort;
    }
  }

  private EtcdCluster(List<Member> members) {
    this.members = members;
    this.hook = new Thread(this::stopAll, "windowpane-etcd-cluster-stop");
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * Starts a 3-member cluster.
   *
   * @throws IllegalStateException if {@code etcd} is missing, a member exits early, or the
   *     cluster is not healthy within 20 s (the message carries the tail of each member's log)
   */
  public static EtcdCluster start() {
    Path binary = EtcdLauncher.BINARY.locate();
    String last = "";
    for (int attempt = 1; attempt <= LAUNCH_ATTEMPTS; attempt++) {
      EtcdCluster cluster = launch(binary);
      Optional<String> failure = cluster.awaitHealthy();
      if (failure.isEmpty()) {
        return cluster;
      }
      last = failure.get() + "\n" + cluster.logs();
      boolean portTaken = ServerProcess.portTaken(cluster.logs());
      cluster.close();
      if (!portTaken) {
        throw new IllegalStateException(last);
      }
    }
    throw new IllegalStateException("etcd cluster could not bind free ports in "
        + LAUNCH_ATTEMPTS + " attempts; last:\n" + last);
  }

  private static EtcdCluster launch(Path binary) {
    List<Member> members = new ArrayList<>();
    try {
      int[] ports = ServerProcess.freePorts(2 * MEMBERS);
      for (int i = 0; i < MEMBERS; i++) {
        members.add(new Member("m" + i, ports[2 * i], ports[2 * i + 1],
            ServerProcess.scratchDirectory("windowpane-etcd-cluster-")));
      }
      StringBuilder initial = new StringBuilder();
      for (Member m : members) {
        initial.append(initial.length() == 0 ? "" : ",").append(m.name).append('=')
            .append(m.peerUrl());
      }
      EtcdCluster cluster = new EtcdCluster(members);
      for (Member m : members) {
        List<String> command = List.of(binary.toString(), "--name", m.name,
            "--data-dir", m.dir.resolve("data").toString(),
            "--listen-client-urls", m.endpoint(), "--advertise-client-urls", m.endpoint(),
            "--listen-peer-urls", m.peerUrl(), "--initial-advertise-peer-urls", m.peerUrl(),
            "--initial-cluster", initial.toString(), "--initial-cluster-state", "new",
            "--initial-cluster-token", "windowpane-" + ports[0]);
        ProcessBuilder builder = new ProcessBuilder(command).directory(m.dir.toFile())
            .redirectErrorStream(true).redirectOutput(m.dir.resolve("etcd.log").toFile());
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(name -> name.startsWith("ETCD_"));
        if (System.getProperty("os.arch", "").equals("aarch64")) {
          env.put("ETCD_UNSUPPORTED_ARCH", "arm64");
        }
        m.process = builder.start();
      }
      return cluster;
    } catch (IOException e) {
      for (Member m : members) {
        if (m.process != null) {
          m.process.destroyForcibly();
        }
        ServerProcess.deleteRecursively(m.dir);
      }
      throw new IllegalStateException("cannot start " + binary + ": " + e.getMessage(), e);
    }
  }

  private Optional<String> awaitHealthy() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    try {
      while (true) {
        boolean all = true;
        for (Member m : members) {
          if (!m.process.isAlive()) {
            return Optional.of("etcd member " + m.name + " exited with code "
                + m.process.exitValue());
          }
          all &= healthy(m);
        }
        if (all) {
          return Optional.empty();
        }
        if (System.nanoTime() - deadline > 0) {
          return Optional.of("etcd cluster not healthy within " + STARTUP_TIMEOUT.toSeconds()
              + " s");
        }
        TimeUnit.MILLISECONDS.sleep(50); // polling a process's readiness, not synchronizing threads
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while waiting for the etcd cluster");
    }
  }

  private boolean healthy(Member m) throws InterruptedException {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(m.endpoint()
          + "/health")).timeout(PROBE_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && HEALTHY.matcher(r.body()).find();
    } catch (IOException notYet) {
      return false;
    }
  }

  /** The client URLs of all members, in member order (stopped ones included). */
  public List<String> endpoints() {
    List<String> out = new ArrayList<>();
    for (Member m : members) {
      out.add(m.endpoint());
    }
    return out;
  }

  /** The client URL of member {@code i}. */
  public String endpoint(int i) {
    return members.get(i).endpoint();
  }

  /**
   * The index of the current leader, as the running members see it; empty while there is none
   * (an election is under way).
   */
  public Optional<Integer> leader() {
    for (Member asked : members) {
      if (asked.process == null || !asked.process.isAlive()) {
        continue;
      }
      try {
        String body = http.send(HttpRequest.newBuilder(URI.create(asked.endpoint()
                + "/v3/maintenance/status")).timeout(PROBE_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        Matcher leader = LEADER.matcher(body);
        if (!leader.find() || leader.group(1).equals("0")) {
          continue;
        }
        String leaderId = leader.group(1);
        for (int i = 0; i < members.size(); i++) {
          Member m = members.get(i);
          if (m.process == null || !m.process.isAlive()) {
            continue;
          }
          String status = http.send(HttpRequest.newBuilder(URI.create(m.endpoint()
                  + "/v3/maintenance/status")).timeout(PROBE_TIMEOUT)
                  .POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
              HttpResponse.BodyHandlers.ofString()).body();
          Matcher id = MEMBER_ID.matcher(status);
          if (id.find() && id.group(1).equals(leaderId)) {
            return Optional.of(i);
          }
        }
      } catch (IOException e) {
        // that member does not answer: ask another
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Stops member {@code i} with SIGKILL and waits for it to exit; idempotent. */
  public void kill(int i) {
    Process p = members.get(i).process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether member {@code i} runs. */
  public boolean isRunning(int i) {
    Process p = members.get(i).process;
    return p != null && p.isAlive();
  }

  private String logs() {
    StringBuilder b = new StringBuilder();
    for (Member m : members) {
      b.append("--- ").append(m.name).append(":\n").append(ServerProcess.tail(m.dir
          .resolve("etcd.log"))).append('\n');
    }
    return b.toString();
  }

  private void stopAll() {
    for (Member m : members) {
      if (m.process != null) {
        m.process.destroyForcibly();
      }
    }
    for (Member m : members) {
      if (m.process != null) {
        ServerProcess.stop(m.process, m.dir);
      } else {
        ServerProcess.deleteRecursively(m.dir);
      }
    }
  }

  /** Stops every member and deletes their directories; idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      stopAll();
      ServerProcess.removeHook(hook);
    }
  }

  @Override
  public String toString() {
    return "EtcdCluster" + endpoints() + (closed.get() ? " closed" : "");
  }
}
