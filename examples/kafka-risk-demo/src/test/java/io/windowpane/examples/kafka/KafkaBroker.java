package io.windowpane.examples.kafka;

import java.io.IOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process, no
 * ZooKeeper) on free loopback ports: Kafka's own {@code kafka.tools.StorageTool} formats a
 * fresh log directory and {@code kafka.Kafka} runs in a child JVM on this test's class path
 * (the {@code kafka_2.13} artifact from Maven Central). {@link #close} stops it and deletes its
 * files.
 */
final class KafkaBroker implements AutoCloseable {

  private final Path dir;
  private final Process process;
  final String bootstrapServers;

  private KafkaBroker(Path dir, Process process, String bootstrapServers) {
    this.dir = dir;
    this.process = process;
    this.bootstrapServers = bootstrapServers;
  }

  static KafkaBroker start() throws Exception {
    Path dir = Files.createTempDirectory("windowpane-kraft");
    int port = freePort();
    int controller = freePort();
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controller);
    p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dir.resolve("logs").toString());
    p.put("num.partitions", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("log.retention.ms", "-1");
    Path config = dir.resolve("server.properties");
    try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(w, "windowpane example: one KRaft node");
    }
    Path log = dir.resolve("broker.log");
    Process format = java(List.of("kafka.tools.StorageTool", "format", "-t",
        Uuid.randomUuid().toString(), "-c", config.toString()), log).start();
    if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
      format.destroyForcibly();
      throw new IllegalStateException("formatting the KRaft log directory failed: "
          + Files.readString(log));
    }
    Process broker = java(List.of("kafka.Kafka", config.toString()), log).start();
    KafkaBroker started = new KafkaBroker(dir, broker, "127.0.0.1:" + port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!listening(port)) {
      if (!broker.isAlive() || System.nanoTime() > deadline) {
        String output = Files.readString(log);
        started.close();
        throw new IllegalStateException("the broker did not start: " + output);
      }
      Thread.sleep(100); // polling a child process's port: nothing to wait on instead
    }
    return started;
  }

  private static ProcessBuilder java(List<String> mainAndArgs, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx384m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.addAll(mainAndArgs);
    return new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
