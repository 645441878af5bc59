package io.windowpane.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup order and its failures, on a made-up binary; nothing is started. */
class ServerBinaryTest {

  private static final ServerBinary DEMO =
      new ServerBinary("demo-server", "windowpane.demo", "WINDOWPANE_DEMO", "demo-pkg");

  @TempDir
  Path dir;

  @Test
  void locate_prefersPropertyThenEnvThenPathThenFallback() throws IOException {
    Path property = executable("property/demo-server");
    Path env = executable("env/demo-server");
    Path onPath = executable("path/demo-server");
    Path fallback = executable("fallback/demo-server");
    String path = dir.resolve("empty") + File.pathSeparator + onPath.getParent();

    assertThat(DEMO.locate(property.toString(), env.toString(), path, fallback))
        .isEqualTo(property);
    assertThat(DEMO.locate(null, env.toString(), path, fallback)).isEqualTo(env);
    assertThat(DEMO.locate(null, null, path, fallback)).isEqualTo(onPath);
    assertThat(DEMO.locate(null, null, dir.toString(), fallback)).isEqualTo(fallback);
    assertThat(DEMO.locate(null, null, null, fallback)).isEqualTo(fallback);
  }

  @Test
  void locate_withNothingOnPathNorAtFallback_failsNamingBothAndHowToInstall() {
    Path fallback = dir.resolve("usr/bin/demo-server");

    assertThatThrownBy(() -> DEMO.locate(null, " ", dir.toString(), fallback))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("demo-server not found on PATH or at " + fallback
            + ": install it with `sudo apt-get install -y demo-pkg` (Debian/Ubuntu), or point"
            + " the system property windowpane.demo or the environment variable"
            + " WINDOWPANE_DEMO at the binary");
  }

  @Test
  void locate_withEnvAtNonexistentPath_failsNamingTheVariable() {
    assertThatThrownBy(() -> DEMO.locate(null, "/nope/demo-server", "", dir))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("demo-server not found at /nope/demo-server")
        .hasMessageContaining("(from the environment variable WINDOWPANE_DEMO)")
        .hasMessageContaining("apt-get install -y demo-pkg");
  }

  @Test
  void locate_withNonExecutableOverride_fails() throws IOException {
    Path plain = Files.createFile(dir.resolve("demo-server"));

    assertThatThrownBy(() -> DEMO.locate(plain.toString(), null, "", dir))
        .hasMessageContaining("no executable file there");
  }

  private Path executable(String relative) throws IOException {
    Path file = dir.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.createFile(file,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
  }
}
