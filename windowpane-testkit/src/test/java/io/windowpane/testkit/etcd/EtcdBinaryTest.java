package io.windowpane.testkit.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the binary, and the failure when it is missing; no etcd is started. */
class EtcdBinaryTest {

  private final String savedProperty = System.getProperty(EtcdBinary.PROPERTY);

  @TempDir
  Path dir;

  @AfterEach
  void restoreProperty() {
    if (savedProperty == null) {
      System.clearProperty(EtcdBinary.PROPERTY);
    } else {
      System.setProperty(EtcdBinary.PROPERTY, savedProperty);
    }
  }

  @Test
  void start_withPropertyAtNonexistentPath_failsWithHowToInstall() {
    Path missing = dir.resolve("no-such-etcd");
    System.setProperty(EtcdBinary.PROPERTY, missing.toString());

    assertThatThrownBy(EtcdServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("etcd not found at " + missing)
        .hasMessageContaining("system property windowpane.etcd")
        .hasMessageContaining("`sudo apt-get install -y etcd-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withNothingOnPathNorAtFallback_failsNamingBothAndHowToInstall() {
    Path fallback = dir.resolve("usr/bin/etcd");

    assertThatThrownBy(() -> EtcdBinary.locate(null, null, dir.toString(), fallback))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("etcd not found on PATH or at " + fallback
            + ": install it with `sudo apt-get install -y etcd-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withEnvAtNonexistentPath_failsNamingTheVariable() {
    assertThatThrownBy(() -> EtcdBinary.locate(null, "/nope/etcd", "", dir))
        .hasMessageContaining("environment variable WINDOWPANE_ETCD")
        .hasMessageContaining("apt-get install -y etcd-server");
  }

  @Test
  void locate_prefersPathOverFallback() throws IOException {
    Path onPath = executable("path/etcd");
    Path fallback = executable("fallback/etcd");

    assertThat(EtcdBinary.locate(null, null, onPath.getParent().toString(), fallback))
        .isEqualTo(onPath);
    assertThat(EtcdBinary.locate(null, null, dir.toString(), fallback)).isEqualTo(fallback);
  }

  private Path executable(String relative) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.createFile(file,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
  }
}
