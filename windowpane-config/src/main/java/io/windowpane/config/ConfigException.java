package io.windowpane.config;

import java.util.List;

/**
 * A configuration file (or tokens file) that cannot be used: it cannot be read, is not valid
 * YAML, or breaks the configuration contract. Checked, because a caller (the {@code serve} and
 * {@code check-config} commands) must report it and stop rather than run with a half-understood
 * configuration.
 *
 * <p>The message is {@code "file:line: problem"} with a 1-based line, or {@code "file: problem"}
 * when no line applies (the file cannot be read, it is empty). When a file has several problems,
 * all of them are collected: the message holds one per line, in the order of their lines in the
 * file, the first being the first problem, which {@link #file()}, {@link #line()} and
 * {@link #problem()} describe. At most {@value Problems#MAX_REPORTED} are listed, then a count of
 * the rest.
 */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String file;
  private final int line;
  private final String problem;
  private final List<Problems.Problem> problems;

  public ConfigException(List<Problems.Problem> problems) {
    super(Problems.format(problems));
    this.problems = List.copyOf(problems);
    Problems.Problem first = problems.get(0);
    this.file = first.file();
    this.line = first.line();
    this.problem = first.text();
  }

  /** One problem with no line. */
  public ConfigException(String file, String problem) {
    this(List.of(new Problems.Problem(file, 0, problem)));
  }

  /** Every problem, in order. */
  public List<Problems.Problem> problems() {
    return problems;
  }

  /** The file of the first problem, as it was named to the loader. */
  public String file() {
    return file;
  }

  /** The 1-based line of the first problem, or 0 when it concerns the whole file. */
  public int line() {
    return line;
  }

  /** The first problem without its {@code file:line:} prefix. */
  public String problem() {
    return problem;
  }
}
