package io.windowpane.spi;

import java.util.Set;
import java.util.function.Function;

/**
 * A base for an {@link EngineProvider} over an engine's builder {@code B}: it refuses an option
 * outside the engine's list (so a configuration and the engine cannot drift apart unnoticed),
 * has the subclass fill a builder from the rest, and builds the engine, connected or deferred,
 * with the builder's own methods. An option left out keeps the builder's default. Stateless and
 * thread-safe.
 *
 * <pre>{@code
 * public final class MyEngineProvider extends BuilderEngineProvider<MyEngine.Builder> {
 *   public MyEngineProvider() {
 *     super("my", Set.of("uri", "timeout"), MyEngine.Builder::build,
 *         MyEngine.Builder::buildDeferred);
 *   }
 *   protected MyEngine.Builder configure(EngineSettings settings) { ... }
 * }
 * }</pre>
 *
 * @param <B> the engine's builder
 */
public abstract class BuilderEngineProvider<B> implements EngineProvider {

  private final String kind;
  private final Set<String> options;
  private final Function<B, ? extends Engine> build;
  private final Function<B, DeferredEngine> buildDeferred;

  /**
   * @param kind the engine kind served ({@link #kind()})
   * @param options every option the engine takes
   * @param build connects and returns the engine, failing fast
   * @param buildDeferred the engine for a failover chain's member that may start while its
   *     backend is down
   */
  protected BuilderEngineProvider(String kind, Set<String> options,
      Function<B, ? extends Engine> build, Function<B, DeferredEngine> buildDeferred) {
    if (kind == null || kind.isEmpty()) {
      throw new IllegalArgumentException("kind must be non-empty, e.g. redis");
    }
    if (options == null || build == null || buildDeferred == null) {
      throw new IllegalArgumentException("options, build and buildDeferred must not be null");
    }
    this.kind = kind;
    this.options = Set.copyOf(options);
    this.build = build;
    this.buildDeferred = buildDeferred;
  }

  @Override
  public final String kind() {
    return kind;
  }

  @Override
  public final Engine build(EngineSettings settings) {
    return build.apply(builder(settings));
  }

  @Override
  public final DeferredEngine buildDeferred(EngineSettings settings) {
    return buildDeferred.apply(builder(settings));
  }

  /**
   * A builder with every option of {@code settings}; connects nothing.
   *
   * @throws IllegalArgumentException an option the engine does not take, or refuses
   */
  public final B builder(EngineSettings settings) {
    settings.requireOnly(options);
    return configure(settings);
  }

  /**
   * A builder with the options of {@code settings}, which are all among the engine's; connects
   * nothing.
   *
   * @throws IllegalArgumentException an option the engine refuses
   */
  protected abstract B configure(EngineSettings settings);
}
