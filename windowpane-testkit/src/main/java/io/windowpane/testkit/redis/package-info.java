/**
 * A real {@code redis-server} for tests: {@link io.windowpane.testkit.redis.RedisServerExtension}
 * starts one per test class on a free loopback port and injects its
 * {@link io.windowpane.testkit.redis.RedisServer} handle; {@link
 * io.windowpane.testkit.redis.RespClient} is a dependency-free RESP client for setup and
 * assertions ({@code FLUSHALL}, {@code INFO}, {@code CONFIG GET}).
 * {@link io.windowpane.testkit.redis.RedisClusterExtension} does the same for a Redis Cluster of
 * primaries ({@link io.windowpane.testkit.redis.RedisCluster}), which can also move a slot live
 * ({@link io.windowpane.testkit.redis.SlotMigration}) to exercise {@code MOVED} and {@code ASK}.
 *
 * <p>The binary is found through the system property {@code windowpane.redis-server}, the
 * environment variable {@code WINDOWPANE_REDIS_SERVER}, the {@code PATH}, then
 * {@code /usr/bin/redis-server}. A missing binary fails the test class; it never skips it.
 */
package io.windowpane.testkit.redis;
