/**
 * A real {@code redis-server} for tests: {@link io.windowpane.testkit.redis.RedisServerExtension}
 * starts one per test class on a free loopback port and injects its
 * {@link io.windowpane.testkit.redis.RedisServer} handle; {@link
 * io.windowpane.testkit.redis.RespClient} is a dependency-free RESP client for setup and
 * assertions ({@code FLUSHALL}, {@code INFO}, {@code CONFIG GET}).
 *
 * <p>The binary is found through the system property {@code windowpane.redis-server}, the
 * environment variable {@code WINDOWPANE_REDIS_SERVER}, the {@code PATH}, then
 * {@code /usr/bin/redis-server}. A missing binary fails the test class; it never skips it.
 */
package io.windowpane.testkit.redis;
