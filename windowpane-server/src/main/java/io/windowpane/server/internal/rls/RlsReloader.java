package io.windowpane.server.internal.rls;

import io.windowpane.Windowpane;
import io.windowpane.config.ConfigException;
import io.windowpane.server.internal.FileWatch;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;

/*
 * Design note. envoyproxy/ratelimit reloads its runtime directory when a file in it changes;
 * this does the same by polling: every rls.reloadInterval (1 s by default) it hashes (SHA-256)
 * the name and content of every file RlsConfig.load would read, and when the hash differs from
 * the one of the rules in force it loads and binds the new rules and swaps them into the
 * service in one volatile write, so a call sees the old rules or the new ones, never a mix.
 * Polling rather than a WatchService: a directory watched recursively needs a registration per
 * subdirectory and misses files replaced through a symlink swap (how Kubernetes updates a
 * ConfigMap volume); hashing a few small YAML files a second costs nothing measurable.
 *
 * A change that does not load (bad YAML, a refused field) is logged once with the file and the
 * field, and the rules in force stay; the same broken content is not reported again. Limiters
 * of a rule whose limit did not change are the same objects (same name, same quota), so their
 * counts go on; a rule whose limit changed counts afresh (RlsRule's name covers the limit).
 */

/** Re-reads the rate limit rules when their files change. Thread-safe. */
final class RlsReloader implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger("io.windowpane.server.rls");

  private final Path path;
  private final Windowpane wp;
  private final RlsService service;
  private final ScheduledExecutorService timer; // null: no background check
  private byte[] seen; // the hash of the files last loaded or refused; guarded by this

  /**
   * Starts checking {@code path} every {@code interval} (zero: only when asked, by
   * {@link #checkNow}); {@code seen} is the hash of the files the rules in force came from.
   */
  RlsReloader(Path path, Windowpane wp, RlsService service, byte[] seen, Duration interval) {
    this.path = path;
    this.wp = wp;
    this.service = service;
    this.seen = seen;
    this.timer = FileWatch.every(interval, "windowpane-rls-reload", this::checkQuietly);
  }

  /**
   * The hash of what {@link RlsConfig#load} would read under {@code path} now (a missing path
   * or an unreadable file hashes as such, so a later fix is seen as a change).
   */
  static byte[] fingerprint(Path path) {
    MessageDigest sha = FileWatch.sha256();
    try {
      for (Path file : RlsConfig.files(path)) {
        FileWatch.add(sha, file);
      }
    } catch (ConfigException e) {
      sha.update(e.getMessage().getBytes(StandardCharsets.UTF_8));
    }
    return sha.digest();
  }

  /**
   * Loads the rules again if their files changed since the last load or refusal.
   *
   * @return true when new rules are now in force, false when nothing changed
   * @throws IllegalArgumentException with the file and field when the changed files do not
   *     load; the rules in force stay
   */
  synchronized boolean checkNow() {
    byte[] now = fingerprint(path);
    if (Arrays.equals(now, seen)) {
      return false;
    }
    seen = now;
    RlsConfig rules;
    try {
      rules = RlsConfig.load(path).bind(wp);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    service.rules(rules);
    LOG.log(Level.INFO, "rate limit rules reloaded from " + path + ": domains "
        + String.join(", ", rules.domains()));
    return true;
  }

  private void checkQuietly() {
    try {
      checkNow();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit rules in " + path + " changed but were not loaded, the"
          + " previous rules stay in force: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
