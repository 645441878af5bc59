package io.windowpane.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared process plumbing, on {@code sleep} and plain files. */
class ServerProcessTest {

  @TempDir
  Path dir;

  @Test
  void freePorts_returnsDistinctNonZeroPorts() throws IOException {
    int[] ports = ServerProcess.freePorts(3);

    assertThat(ports).hasSize(3).doesNotContain(0);
    assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(3);
  }

  @Test
  void stop_endsTheProcessAndDeletesItsDirectory() throws IOException {
    Path own = Files.createDirectories(dir.resolve("own/nested"));
    Files.writeString(own.resolve("server.log"), "x");
    Process process = new ProcessBuilder("sleep", "60").start();
    Thread hook = ServerProcess.stopOnShutdown(process, own.getParent(), "test-stop");

    ServerProcess.stop(process, own.getParent());
    ServerProcess.removeHook(hook);

    assertThat(process.isAlive()).isFalse();
    assertThat(own.getParent()).doesNotExist();
    ServerProcess.removeHook(hook); // twice is harmless
  }

  @Test
  void tail_keepsTheLast30Lines() throws IOException {
    Path log = dir.resolve("server.log");
    Files.writeString(log, IntStream.rangeClosed(1, 40).mapToObj(i -> "line " + i)
        .collect(Collectors.joining("\n")));

    String tail = ServerProcess.tail(log);

    assertThat(tail).startsWith("line 11\n").endsWith("line 40");
    assertThat(tail.lines()).hasSize(30);
    assertThat(ServerProcess.tail(dir.resolve("missing.log"))).startsWith("(output unreadable: ");
  }

  @Test
  void portTaken_matchesTheBindErrorInAnyCase() {
    assertThat(ServerProcess.portTaken("# Could not create server TCP listening socket"
        + " 127.0.0.1:6379: bind: Address already in use")).isTrue();
    assertThat(ServerProcess.portTaken("listen tcp 127.0.0.1:2380: bind: address already in use"))
        .isTrue();
    assertThat(ServerProcess.portTaken("fatal: bad flag")).isFalse();
  }
}
