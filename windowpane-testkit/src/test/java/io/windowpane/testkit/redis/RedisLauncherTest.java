package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start failures, with a shell script standing in for redis-server (no server is started). */
class RedisLauncherTest {

  private final String savedProperty = System.getProperty(RedisLauncher.BINARY.property());

  @TempDir
  Path dir;

  @AfterEach
  void restoreProperty() {
    if (savedProperty == null) {
      System.clearProperty(RedisLauncher.BINARY.property());
    } else {
      System.setProperty(RedisLauncher.BINARY.property(), savedProperty);
    }
  }

  @Test
  void start_whenTheProcessExitsEarly_failsWithExitCodeCommandAndOutput() throws IOException {
    useFakeBinary("echo 'FATAL CONFIG FILE ERROR' >&2; exit 3");

    assertThatThrownBy(RedisServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis-server exited with code 3 before answering PING")
        .hasMessageContaining("--bind 127.0.0.1 --save \"\" --appendonly no --daemonize no")
        .hasMessageContaining("FATAL CONFIG FILE ERROR");
  }

  @Test
  void start_whenEveryPortIsTaken_retriesThenFails() throws IOException {
    useFakeBinary("echo \"bind: Address already in use ($2)\"; exit 1");

    assertThatThrownBy(RedisServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("could not bind a free port on 127.0.0.1 in 5 attempts")
        .hasMessageContaining("Address already in use");
  }

  @Test
  void shown_masksPasswordsAndQuotesEmptyArguments() {
    assertThat(RedisLauncher.shown(List.of("redis-server", "--save", "", "--requirepass", "pw1",
        "--cluster-enabled", "yes", "--masterauth", "pw2")))
        .isEqualTo("redis-server --save \"\" --requirepass **** --cluster-enabled yes"
            + " --masterauth ****");
  }

  private void useFakeBinary(String script) throws IOException {
    Path fake = dir.resolve("redis-server");
    Files.writeString(fake, "#!/bin/sh\n" + script + "\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
    System.setProperty(RedisLauncher.BINARY.property(), fake.toString());
  }
}
