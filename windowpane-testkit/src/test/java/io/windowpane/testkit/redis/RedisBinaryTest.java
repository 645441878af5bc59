package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding the binary, and the failure when it is missing; no redis-server is started. */
class RedisBinaryTest {

  private final String savedProperty = System.getProperty(RedisBinary.PROPERTY);

  @TempDir
  Path dir;

  @AfterEach
  void restoreProperty() {
    if (savedProperty == null) {
      System.clearProperty(RedisBinary.PROPERTY);
    } else {
      System.setProperty(RedisBinary.PROPERTY, savedProperty);
    }
  }

  @Test
  void start_withPropertyAtNonexistentPath_failsWithHowToInstall() {
    Path missing = dir.resolve("no-such-redis-server");
    System.setProperty(RedisBinary.PROPERTY, missing.toString());

    assertThatThrownBy(RedisServer::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis-server not found at " + missing)
        .hasMessageContaining("system property windowpane.redis-server")
        .hasMessageContaining("`sudo apt-get install -y redis-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withNothingOnPathNorAtFallback_failsNamingBothAndHowToInstall() {
    Path fallback = dir.resolve("usr/bin/redis-server");

    assertThatThrownBy(() -> RedisBinary.locate(null, " ", dir.toString(), fallback))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("redis-server not found on PATH or at " + fallback
            + ": install it with `sudo apt-get install -y redis-server` (Debian/Ubuntu)");
  }

  @Test
  void locate_withEnvAtNonexistentPath_failsNamingTheVariable() {
    assertThatThrownBy(() -> RedisBinary.locate(null, "/nope/redis-server", "", dir))
        .hasMessageContaining("environment variable WINDOWPANE_REDIS_SERVER")
        .hasMessageContaining("apt-get install -y redis-server");
  }

  @Test
  void locate_withNonExecutableOverride_fails() throws IOException {
    Path plain = Files.createFile(dir.resolve("redis-server"));

    assertThatThrownBy(() -> RedisBinary.locate(plain.toString(), null, "", dir))
        .hasMessageContaining("no executable file there");
  }

  @Test
  void locate_prefersPropertyThenEnvThenPathThenFallback() throws IOException {
    Path property = executable("property/redis-server");
    Path env = executable("env/redis-server");
    Path onPath = executable("path/redis-server");
    Path fallback = executable("fallback/redis-server");
    String path = dir.resolve("empty") + File.pathSeparator + onPath.getParent();

    assertThat(RedisBinary.locate(property.toString(), env.toString(), path, fallback))
        .isEqualTo(property);
    assertThat(RedisBinary.locate(null, env.toString(), path, fallback)).isEqualTo(env);
    assertThat(RedisBinary.locate(null, null, path, fallback)).isEqualTo(onPath);
    assertThat(RedisBinary.locate(null, null, null, fallback)).isEqualTo(fallback);
  }

  @Test
  void withPassword_rejectsEmptyOrWhitespacePasswords() {
    assertThatThrownBy(() -> RedisServerExtension.withPassword(""))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("password:");
    assertThatThrownBy(() -> RedisServerExtension.withPassword("a b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("password:");
  }

  private Path executable(String relative) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.createFile(file,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
  }
}
