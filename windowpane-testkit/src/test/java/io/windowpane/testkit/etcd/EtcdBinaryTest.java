package io.windowpane.testkit.etcd;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the binary, and the failure when it is missing; no etcd is started. */
class EtcdBinaryTest {

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
  void start_withPropertyAtNonexistentPath_failsWithHowToInstall() {
    Path missing = dir.resolve("no-such-etcd");
    System.setProperty(EtcdLauncher.BINARY.property(), missing.toString());

    assertThatThrownBy(EtcdServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("etcd not found at " + missing)
        .hasMessageContaining("system property windowpane.etcd")
        .hasMessageContaining("`sudo apt-get install -y etcd-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withNothingOnPathNorAtFallback_failsNamingBothAndHowToInstall() {
    Path fallback = dir.resolve("usr/bin/etcd");

    assertThatThrownBy(() -> EtcdLauncher.BINARY.locate(null, null, dir.toString(), fallback))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("etcd not found on PATH or at " + fallback
            + ": install it with `sudo apt-get install -y etcd-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withEnvAtNonexistentPath_failsNamingTheVariable() {
    assertThatThrownBy(() -> EtcdLauncher.BINARY.locate(null, "/nope/etcd", "", dir))
        .hasMessageContaining("environment variable WINDOWPANE_ETCD")
        .hasMessageContaining("apt-get install -y etcd-server");
  }
}
