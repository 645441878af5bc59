package io.windowpane.server.config;

import io.windowpane.config.*;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bearer tokens: what a valid one looks like, and the tokens file format. A token is
 * {@value #MIN_LENGTH} to {@value #MAX_LENGTH} visible ASCII characters ({@code !} to
 * {@code ~}), so no spaces: long enough not to be guessed, short enough for a header, and
 * exactly what fits {@code Authorization: Bearer <token>}. Problems never quote a token, only
 * its length, so that a secret does not reach logs.
 */
final class Tokens {

  static final int MIN_LENGTH = 16;
  static final int MAX_LENGTH = 512;

  private Tokens() {}

  /** Null when {@code token} is valid, else a problem that completes "token ...". */
  static String problem(String token) {
    if (token == null) {
      return "must be " + rule() + ", was null";
    }
    if (token.length() < MIN_LENGTH || token.length() > MAX_LENGTH) {
      return "must be " + rule() + ", was " + token.length() + " characters long";
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < '!' || c > '~') {
        return "must be " + rule() + ", has " + (c == ' ' ? "a space" : "a character outside"
            + " visible ASCII") + " at position " + (i + 1);
      }
    }
    return null;
  }

  private static String rule() {
    return MIN_LENGTH + " to " + MAX_LENGTH + " visible ASCII characters with no spaces";
  }

  /**
   * The tokens of {@code file}: one per line, surrounding whitespace trimmed, blank lines and
   * lines starting with {@code #} skipped. At least one token is required: a tokens file meant
   * to protect the service must not silently leave it open.
   *
   * @throws ConfigException naming {@code file} and the line of each bad token
   */
  static List<String> readFile(Path file) throws ConfigException {
    String name = file.toString();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new ConfigException(name, "cannot read the tokens file: no such file");
    } catch (AccessDeniedException e) {
      throw new ConfigException(name, "cannot read the tokens file: permission denied");
    } catch (MalformedInputException e) {
      throw new ConfigException(name, "cannot read the tokens file: it is not UTF-8 text");
    } catch (IOException e) {
      throw new ConfigException(name, "cannot read the tokens file: " + e);
    }
    Problems problems = new Problems(name);
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String token = lines.get(i).strip();
      if (token.isEmpty() || token.startsWith("#")) {
        continue;
      }
      String problem = problem(token);
      if (problem != null) {
        problems.at(i + 1, "token " + problem);
      } else {
        tokens.add(token);
      }
    }
    problems.throwIfAny();
    if (tokens.isEmpty()) {
      throw new ConfigException(name, "the tokens file holds no tokens (one per line; blank"
          + " lines and # comments are skipped)");
    }
    return tokens;
  }
}
