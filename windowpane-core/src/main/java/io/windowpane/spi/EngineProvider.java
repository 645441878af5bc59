package io.windowpane.spi;

/*
 * Design note: why this interface lives in core. The configuration module (windowpane-config,
 * read by the service's YAML file and the Spring Boot starter's properties) names the Redis and
 * etcd engines but must not depend on them: an application on the in-process engine would
 * otherwise carry Lettuce, jetcd, gRPC and Netty. The engines cannot implement an interface of
 * windowpane-config either without pointing a dependency upwards (every engine would then drag
 * the YAML vocabulary and SnakeYAML along). Core is the one module both already depend on, so
 * the seam is here, and what crosses it is core's own EngineSettings: the engine's block of the
 * configuration as checked values under the configuration's own names, which the provider
 * translates into its builder. The engine modules register their provider in
 * META-INF/services/io.windowpane.spi.EngineProvider; windowpane-config finds them with
 * java.util.ServiceLoader when it opens an engine, not when it reads a file, so a file can be
 * checked where no engine is on the class path.
 */

/**
 * Builds the engine of one kind ({@code "redis"}, {@code "etcd"}) from the options a
 * configuration gives it, for {@code windowpane-config} (the service, the Spring Boot starter).
 * Found with {@link java.util.ServiceLoader}: an engine module lists its implementation in
 * {@code META-INF/services/io.windowpane.spi.EngineProvider}. An implementation is stateless,
 * thread-safe and has a public no-argument constructor.
 *
 * <p>The options a configuration passes are documented by each provider; the configuration has
 * already checked their form and ranges (with the file's lines), so a provider reports what only
 * its engine can tell with an {@link IllegalArgumentException}, before any I/O.
 */
public interface EngineProvider {

  /** The engine kind served, as configurations name it: {@code redis}, {@code etcd}. */
  String kind();

  /**
   * Builds and connects the engine, failing fast: a backend that cannot be reached throws here,
   * with the cause attached. For a single engine. The caller closes it.
   *
   * @throws IllegalArgumentException an option the engine refuses, before any I/O
   * @throws RuntimeException what the engine's builder throws when it cannot connect
   */
  Engine build(EngineSettings settings);

  /**
   * Builds the engine for a member of a {@link io.windowpane.Failover} chain that must start
   * while its backend is down: connected now if the backend answers, otherwise a
   * {@link DeferredEngine} that the chain starts {@code DOWN} and that connects in the
   * background. Bad options still throw at once. The caller closes it.
   *
   * @throws IllegalArgumentException an option the engine refuses, before any I/O
   */
  DeferredEngine buildDeferred(EngineSettings settings);
}
