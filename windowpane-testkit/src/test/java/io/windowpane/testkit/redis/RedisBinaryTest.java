package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the binary, and the failure when it is missing; no redis-server is started. */
class RedisBinaryTest {

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
  void start_withPropertyAtNonexistentPath_failsWithHowToInstall() {
    Path missing = dir.resolve("no-such-redis-server");
    System.setProperty(RedisLauncher.BINARY.property(), missing.toString());

    assertThatThrownBy(RedisServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis-server not found at " + missing)
        .hasMessageContaining("system property windowpane.redis-server")
        .hasMessageContaining("`sudo apt-get install -y redis-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withNothingOnPathNorAtFallback_failsNamingBothAndHowToInstall() {
    Path fallback = dir.resolve("usr/bin/redis-server");

    assertThatThrownBy(() -> RedisLauncher.BINARY.locate(null, " ", dir.toString(), fallback))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("redis-server not found on PATH or at " + fallback
            + ": install it with `sudo apt-get install -y redis-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withEnvAtNonexistentPath_failsNamingTheVariable() {
    assertThatThrownBy(() -> RedisLauncher.BINARY.locate(null, "/nope/redis-server", "", dir))
        .hasMessageContaining("environment variable WINDOWPANE_REDIS_SERVER")
        .hasMessageContaining("apt-get install -y redis-server");
  }

  @Test
  void withPassword_rejectsEmptyOrWhitespacePasswords() {
    assertThatThrownBy(() -> RedisServerExtension.withPassword(""))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("password:");
    assertThatThrownBy(() -> RedisServerExtension.withPassword("a b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("password:");
  }
}
