package io.windowpane.server.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** What the reloaders of the configuration and of the Envoy rules share: hashes and a timer. */
public final class FileWatch {

  private FileWatch() {}

  /** A new SHA-256 digest. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Adds {@code file}'s name and bytes to {@code sha} (an unreadable file hashes as such). */
  public static void add(MessageDigest sha, Path file) {
    sha.update(file.toString().getBytes(StandardCharsets.UTF_8));
    sha.update((byte) 0);
    try {
      sha.update(Files.readAllBytes(file));
    } catch (IOException e) {
      sha.update(("unreadable: " + e).getBytes(StandardCharsets.UTF_8));
    }
    sha.update((byte) 0);
  }

  /**
   * Runs {@code check} every {@code interval} on a daemon thread named {@code thread}; null (no
   * timer) when {@code interval} is zero.
   */
  public static ScheduledExecutorService every(Duration interval, String thread,
      Runnable check) {
    if (interval.isZero()) {
      return null;
    }
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, thread);
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(check, interval.toMillis(), interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return timer;
  }
}
