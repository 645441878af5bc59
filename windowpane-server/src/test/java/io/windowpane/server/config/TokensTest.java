package io.windowpane.server.config;

import io.windowpane.config.*;
import static io.windowpane.server.config.ConfigErrorsTest.first;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bearer tokens: inline, from a tokens file, merged; and the problems, which never show one. */
class TokensTest {

  @TempDir Path dir;

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  private static ConfigException tokensProblem(Path file) {
    ConfigException e = catchThrowableOfType(() -> ServerConfig.readTokensFile(file),
        ConfigException.class);
    assertThat(e).isNotNull();
    return e;
  }

  @Test
  void readTokensFile_skipsBlankLinesAndComments() throws Exception {
    Path file = write("tokens", "# ops team\n\n  first-token-0000000  \r\n#second\n"
        + "second-token-000000\n");

    assertThat(ServerConfig.readTokensFile(file))
        .containsExactly("first-token-0000000", "second-token-000000");
  }

  @Test
  void readTokensFile_badToken_namesFileAndLineNotToken() throws Exception {
    Path file = write("tokens", "good-token-00000000\n# comment\nshort\nhas a space in it 1234\n");

    ConfigException e = tokensProblem(file);
    assertThat(e.file()).isEqualTo(file.toString());
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage()).isEqualTo(file + ":3: token must be 16 to 512 visible ASCII"
        + " characters with no spaces, was 5 characters long\n" + file + ":4: token must be 16"
        + " to 512 visible ASCII characters with no spaces, has a space at position 4");
    assertThat(e.getMessage()).doesNotContain("short").doesNotContain("has a space in");
  }

  @Test
  void readTokensFile_tooLongOrNonAscii_isRefused() throws Exception {
    assertThat(tokensProblem(write("a", "x".repeat(513) + "\n")).problem())
        .endsWith("was 513 characters long");
    assertThat(tokensProblem(write("b", "token-with-é-0000000\n")).problem())
        .endsWith("has a character outside visible ASCII at position 12");
    assertThat(ServerConfig.readTokensFile(write("c", "x".repeat(512)))).hasSize(1);
    assertThat(ServerConfig.readTokensFile(write("d", "x".repeat(16)))).hasSize(1);
  }

  @Test
  void readTokensFile_noTokens_isAnError() throws Exception {
    Path file = write("tokens", "# nothing yet\n\n");

    ConfigException e = tokensProblem(file);
    assertThat(e.line()).isZero();
    assertThat(e.getMessage()).isEqualTo(file + ": the tokens file holds no tokens (one per"
        + " line; blank lines and # comments are skipped)");
  }

  @Test
  void readTokensFile_missing_namesTheFile() {
    Path file = dir.resolve("absent");

    assertThat(tokensProblem(file).getMessage())
        .isEqualTo(file + ": cannot read the tokens file: no such file");
  }

  @Test
  void load_tokensAndTokensFile_areMergedOnceEach() throws Exception {
    write("tokens", "from-file-token-0001\ninline-token-000001\n");
    Path config = write("windowpane.yaml", """
        auth:
          tokens: [ "inline-token-000001", "inline-token-000002" ]
          tokensFile: tokens
        """);

    assertThat(ServerConfig.load(config).tokens()).containsExactly("inline-token-000001",
        "inline-token-000002", "from-file-token-0001");
  }

  @Test
  void load_badTokensFile_reportedAtTheTokensFileLine() throws Exception {
    Path tokens = write("tokens", "ok-token-0000000000\ntoo-short\n");
    Path config = write("windowpane.yaml", "server:\n  port: 1\nauth:\n  tokensFile: "
        + tokens + "\n");

    ConfigException e = catchThrowableOfType(() -> ServerConfig.load(config),
        ConfigException.class);
    assertThat(e.getMessage()).isEqualTo(config + ":4: auth.tokensFile: " + tokens + ":2: token"
        + " must be 16 to 512 visible ASCII characters with no spaces, was 9 characters long");
  }

  @Test
  void parse_badInlineToken_namesIndexNotToken() {
    assertThat(first("auth:\n  tokens:\n    - abcdefghijklmnopq\n    - sesame\n"))
        .isEqualTo("windowpane.yaml:4: auth.tokens[1] must be 16 to 512 visible ASCII characters"
            + " with no spaces, was 6 characters long");
  }

  @Test
  void parse_tokensNotAList_isAnError() {
    assertThat(first("auth:\n  tokens: abcdefghijklmnopq\n")).isEqualTo("windowpane.yaml:2:"
        + " auth.tokens must be a list, e.g. [ \"a-long-random-token\" ], was"
        + " 'abcdefghijklmnopq'");
  }
}
