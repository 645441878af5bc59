package io.windowpane.testkit.process;

import java.util.Map;

/**
 * Every outside program the test suite runs, and where each comes from when the machine lacks
 * it. The versions the suite covers:
 *
 * <ul>
 *   <li>Redis 7 ({@code redis-server}, {@code redis-cli}): from {@code PATH}, else Debian's
 *       {@code redis-server} / {@code redis-tools} (7.0 on Debian 12), installed by the testkit;
 *   <li>Redis 6.2 ({@link #REDIS_6}): unpacked from {@code com.github.codemonstur:embedded-redis}
 *       on Maven Central (6.2.11 for Linux x86-64 and arm64);
 *   <li>etcd 3.4 ({@code etcd}): from {@code PATH}, else Debian's {@code etcd-server} (3.4.23 on
 *       Debian 12). etcd 3.5 is run when it is the one on {@code PATH}; neither Debian 12 nor
 *       Maven Central offers it here;
 *   <li>Chromium and its chromedriver ({@code chromium}, {@code chromedriver}): from
 *       {@code PATH}, else Debian's {@code chromium} / {@code chromium-driver}, for the
 *       dashboard's browser test.
 * </ul>
 */
public final class TestBinaries {

  /** {@code redis-server} (Redis 7 with Functions where Debian provides it). */
  public static final ServerBinary REDIS_SERVER = new ServerBinary("redis-server",
      "windowpane.redis-server", "WINDOWPANE_REDIS_SERVER", "redis-server");

  /** {@code redis-cli}, for the test that calls the functions as a non-Java client would. */
  public static final ServerBinary REDIS_CLI =
      new ServerBinary("redis-cli", "windowpane.redis-cli", "WINDOWPANE_REDIS_CLI", "redis-tools");

  /** {@code etcd}. */
  public static final ServerBinary ETCD =
      new ServerBinary("etcd", "windowpane.etcd", "WINDOWPANE_ETCD", "etcd-server");

  /** Chromium, for the server's dashboard test in a real headless browser. */
  public static final ServerBinary CHROMIUM =
      new ServerBinary("chromium", "windowpane.chromium", "WINDOWPANE_CHROMIUM", "chromium");

  /** The WebDriver server of Debian's Chromium (same version), which drives it. */
  public static final ServerBinary CHROMEDRIVER = new ServerBinary("chromedriver",
      "windowpane.chromedriver", "WINDOWPANE_CHROMEDRIVER", "chromium-driver");

  /** Redis 6.2, without Functions: the engine's EVALSHA path on a real Redis 6. */
  public static final BundledBinary REDIS_6 = new BundledBinary("redis-server", "6.2",
      "com.github.codemonstur:embedded-redis:1.4.3", Map.of(
          "amd64", "redis-server-6.2.6-v5-linux-amd64",
          "x86_64", "redis-server-6.2.6-v5-linux-amd64",
          "aarch64", "redis-server-6.2.7-linux-arm64"));

  private TestBinaries() {}
}
