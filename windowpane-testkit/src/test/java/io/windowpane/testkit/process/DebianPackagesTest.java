package io.windowpane.testkit.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Installing packages through a stand-in apt-get script; nothing is installed for real. */
class DebianPackagesTest {

  private static final String ONE_COMMAND =
      "    sudo apt-get install -y redis-server redis-tools etcd-server etcd-client chromium"
      + " chromium-driver";

  @TempDir
  Path dir;

  @Test
  void install_withoutAptGet_failsWithTheOneCommand() {
    assertThatThrownBy(() -> DebianPackages.install(List.of("pkg-a"), dir.resolve("apt-get"),
        () -> Optional.of(List.of())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("the testkit cannot install pkg-a: this machine has no "
            + dir.resolve("apt-get") + " (not Debian or Ubuntu)")
        .hasMessageEndingWith(ONE_COMMAND);
  }

  @Test
  void install_withoutRootOrSudo_failsOnceThenRepeatsTheFailureWithoutTryingAgain()
      throws IOException {
    Path apt = fakeAptGet(0);
    AtomicInteger privilegeChecks = new AtomicInteger();

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> DebianPackages.install(List.of("pkg-b"), apt, () -> {
        privilegeChecks.incrementAndGet();
        return Optional.empty();
      })).hasMessageStartingWith("the testkit cannot install pkg-b: this process is not root"
          + " and has no passwordless sudo").hasMessageEndingWith(ONE_COMMAND);
    }
    assertThat(privilegeChecks).hasValue(1);
    assertThat(dir.resolve("calls")).doesNotExist();
  }

  @Test
  void install_whenAptGetSucceeds_runsANonInteractiveInstallOfThePackages() throws IOException {
    Path apt = fakeAptGet(0);

    DebianPackages.install(List.of("pkg-c", "pkg-d"), apt, () -> Optional.of(List.of()));

    assertThat(Files.readAllLines(dir.resolve("calls"))).last()
        .isEqualTo("noninteractive install -y -q --no-install-recommends pkg-c pkg-d");
  }

  @Test
  void install_whenAptGetFails_updatesRetriesOnceAndFailsWithItsOutput() throws IOException {
    Path apt = fakeAptGet(100);

    assertThatThrownBy(() -> DebianPackages.install(List.of("pkg-e"), apt,
        () -> Optional.of(List.of())))
        .hasMessageMatching("(?s)the testkit cannot install pkg-e: apt-get (update|install)"
            + " failed; last lines of .*")
        .hasMessageContaining("E: made-up failure")
        .hasMessageEndingWith(ONE_COMMAND);
    List<String> calls = Files.readAllLines(dir.resolve("calls"));
    assertThat(calls).isNotEmpty().allMatch(call -> call.startsWith("noninteractive "))
        .anyMatch(call -> call.startsWith("noninteractive update"));
  }

  /** A stand-in apt-get that records its arguments and exits with {@code code}. */
  private Path fakeAptGet(int code) throws IOException {
    Path script = dir.resolve("apt-get");
    Files.writeString(script, "#!/bin/sh\n"
        + "echo \"$DEBIAN_FRONTEND $*\" >> '" + dir.resolve("calls") + "'\n"
        + "echo 'E: made-up failure'\n"
        + "exit " + code + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }
}
