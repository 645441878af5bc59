package io.windowpane.testkit.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start failures, with a shell script standing in for etcd (no server is started). */
class EtcdLauncherTest {

  private final String savedProperty = System.getProperty(EtcdLauncher.BINARY.property());

  @TempDir
  Path dir;

  @AfterEach
  void restoreProperty() {
    if (savedProperty == null) {
      System.clearProperty(EtcdLauncher.BINARY.property());
    } else {
      System.setProperty(EtcdLauncher.BINARY.property(), savedProperty);
    }
  }

  @Test
  void start_whenTheProcessExitsEarly_failsWithExitCodeCommandAndOutput() throws IOException {
    useFakeBinary("echo 'etcdmain: member has already been bootstrapped' >&2; exit 1");

    assertThatThrownBy(EtcdServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("etcd exited with code 1 before reporting healthy")
        .hasMessageContaining("--initial-cluster default=http://127.0.0.1:")
        .hasMessageContaining("member has already been bootstrapped");
  }

  private void useFakeBinary(String script) throws IOException {
    Path fake = dir.resolve("etcd");
    Files.writeString(fake, "#!/bin/sh\n" + script + "\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
    System.setProperty(EtcdLauncher.BINARY.property(), fake.toString());
  }
}
