package io.windowpane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;

/** Reads a configuration file's text as the service reads its engine and windows, for tests. */
final class ConfigFiles {

  private ConfigFiles() {}

  /** {@code yaml} as the file {@code file}; {@code passwordEnv} reads the environment. */
  static WindowpaneConfig parse(String yaml, String file) throws ConfigException {
    return WindowpaneConfig.read(YamlDocument.compose(yaml, file), file, "", List.of(),
        System::getenv);
  }

  /** The problem of {@code yaml} as {@code windowpane.yaml}, which must have one. */
  static ConfigException problem(String yaml) {
    ConfigException e = catchThrowableOfType(() -> parse(yaml, "windowpane.yaml"),
        ConfigException.class);
    assertThat(e).as("a ConfigException for:\n" + yaml).isNotNull();
    return e;
  }

  /** The first line of the message, which must agree with file(), line() and problem(). */
  static String first(String yaml) {
    ConfigException e = problem(yaml);
    String first = e.getMessage().split("\n")[0];
    assertThat(first).isEqualTo(e.file() + ":" + e.line() + ": " + e.problem());
    return first;
  }
}
