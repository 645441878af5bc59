package io.windowpane.server.internal;

import io.windowpane.config.ConfigException;
import io.windowpane.server.config.ServerConfig;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

/*
 * Design note. The service's own configuration file is reloaded the way the Envoy rules are
 * (rls/RlsReloader): every server.reloadInterval (1 s by default) the file's bytes are hashed
 * (SHA-256), and when the hash differs from the one last loaded or refused the file is read and
 * validated whole. A file that does not validate is logged once with its problems, and nothing
 * changes. One that does is applied by Catalog.apply: limiters whose limits changed in permits
 * only are reconfigured in place (Windowpane.reconfigure: every key keeps its counts, the next
 * decision uses the new permits), and every other change (a limiter added or removed, another
 * window, counters, statistics, the server, auth, engine, rls, rlqs or tracing sections) is
 * logged as waiting for a restart. Polling, not a WatchService, for the reasons RlsReloader gives (a
 * ConfigMap's symlink swap).
 */

/** Re-reads the service's configuration file when it changes and applies its limits. */
public final class ConfigReloader implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger("io.windowpane.server.config");

  private final Path file;
  private final Service service;
  private final String restartOnly; // the settings read at start only, as loaded then
  private final ScheduledExecutorService timer; // null: no background check
  private byte[] seen; // the hash of the file last loaded or refused; guarded by this

  /**
   * Starts checking {@code config}'s file every {@link ServerConfig#reloadInterval()} (zero:
   * only when asked, by {@link #checkNow}); {@code config} is what the service started with.
   */
  public ConfigReloader(ServerConfig config, Service service) {
    this.file = config.file().orElseThrow();
    this.service = service;
    this.restartOnly = restartOnly(asInFile(config));
    this.seen = fingerprint(file);
    this.timer = FileWatch.every(config.reloadInterval(), "windowpane-config-reload",
        this::checkQuietly);
  }

  /** The hash of the file's name and bytes now (an unreadable file hashes as such). */
  static byte[] fingerprint(Path file) {
    MessageDigest sha = FileWatch.sha256();
    FileWatch.add(sha, file);
    return sha.digest();
  }

  /** {@code config} as its file says, without command-line options; itself if it does not load. */
  private static ServerConfig asInFile(ServerConfig config) {
    try {
      return ServerConfig.load(config.file().orElseThrow());
    } catch (ConfigException e) {
      return config;
    }
  }

  /** The settings a reload does not apply, as one comparable string (tokens hashed). */
  private static String restartOnly(ServerConfig c) {
    return c.host() + "|" + c.port() + "|" + c.maxBodyBytes() + "|" + c.maxKeyLength() + "|"
        + c.maxBatch() + "|" + c.topKeys() + "|" + c.shutdownTimeout() + "|"
        + c.tokens().hashCode() + "|" + c.engine().describe() + "|" + c.grpcPort() + "|"
        + c.rlsConfig() + "|" + c.reloadInterval() + "|" + c.rlsReloadInterval() + "|"
        + c.rlqsPort() + "|" + c.rlqsConfig() + "|" + c.otlpEndpoint() + "|"
        + c.samplingRatio();
  }

  /**
   * Loads the file again if it changed since the last load or refusal, and applies its limits.
   *
   * @return the limiters whose permits changed (empty when nothing changed, or nothing that
   *     applies at run time: what waits for a restart is logged)
   * @throws IllegalArgumentException with the file and field when the changed file does not
   *     validate; nothing changes
   */
  public synchronized List<String> checkNow() {
    byte[] now = fingerprint(file);
    if (Arrays.equals(now, seen)) {
      return List.of();
    }
    seen = now;
    ServerConfig next;
    try {
      next = ServerConfig.load(file);
    } catch (ConfigException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    Catalog.Applied applied = service.apply(next);
    for (String name : applied.reconfigured()) {
      StringBuilder limits = new StringBuilder();
      next.limiters().get(name).limits().forEach(l -> limits.append(limits.length() == 0
          ? "" : ", ").append(l.name()).append(": ").append(l.permits()));
      LOG.log(Level.INFO, "configuration reloaded from " + file + ": limiter " + name
          + " now decides against [" + limits + "] permits; its keys keep their counts");
    }
    for (String problem : applied.notApplied()) {
      LOG.log(Level.WARNING, "configuration in " + file + " changed, not applied until a"
          + " restart: " + problem);
    }
    if (!restartOnly(next).equals(restartOnly)) {
      LOG.log(Level.WARNING, "configuration in " + file + " changed, not applied until a"
          + " restart: the server, auth, engine, rls, rlqs or tracing sections");
    }
    return applied.reconfigured();
  }

  private void checkQuietly() {
    try {
      checkNow();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "configuration in " + file + " changed but was not loaded, the"
          + " limits in force stay: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
