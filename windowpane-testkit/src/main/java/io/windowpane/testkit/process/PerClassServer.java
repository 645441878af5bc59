package io.windowpane.testkit.process;

import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ExtensionContext.Store;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;

/**
 * The store and lifecycle code a server extension delegates to: one server per test class, kept
 * in the class's {@link Store} as a {@link Store.CloseableResource} (so JUnit closes it even when
 * {@code afterAll} is skipped), shared by {@code @Nested} classes (the outermost registration
 * wins), and injected into parameters of the server's type. Immutable and thread-safe.
 *
 * @param <S> the server handle type
 */
public final class PerClassServer<S> {

  private static final String KEY = "server";

  private final Namespace namespace;
  private final Class<S> type;
  private final Consumer<S> stop;
  private final String serverName;
  private final String extensionName;

  /**
   * @param extension the extension class; it names the store namespace and the error message
   * @param type the server handle type injected into parameters
   * @param serverName the binary's name in the error message, e.g. {@code "redis-server"}
   * @param stop stops a server, e.g. {@code RedisServer::close}
   */
  public PerClassServer(Class<?> extension, Class<S> type, String serverName, Consumer<S> stop) {
    this.namespace = Namespace.create(extension);
    this.type = type;
    this.stop = stop;
    this.serverName = serverName;
    this.extensionName = extension.getSimpleName();
  }

  /** For {@code beforeAll}: starts a server unless this class or an enclosing one has one. */
  public void beforeAll(ExtensionContext context, Supplier<S> start) {
    Store store = context.getStore(namespace);
    if (store.get(KEY, Running.class) == null) { // looks in enclosing classes' stores too
      store.put(KEY, new Running<>(start.get(), stop));
    }
  }

  /** For {@code afterAll}: stops the server this class started, if any. */
  public void afterAll(ExtensionContext context) {
    Running<?> running = context.getStore(namespace).remove(KEY, Running.class); // this class only
    if (running != null) {
      running.close();
    }
  }

  /** Whether the parameter has the server's type. */
  public boolean supportsParameter(ParameterContext parameter) {
    return parameter.getParameter().getType() == type;
  }

  /**
   * The running server.
   *
   * @throws ParameterResolutionException if none runs, i.e. the extension was not registered on
   *     the test class
   */
  public S resolveParameter(ExtensionContext context) {
    Running<?> running = context.getStore(namespace).get(KEY, Running.class);
    if (running == null) {
      throw new ParameterResolutionException("No " + serverName + " is running for "
          + context.getDisplayName() + ": register " + extensionName + " on the test class"
          + " (@ExtendWith, or @RegisterExtension on a static field), not on a method or an"
          + " instance field");
    }
    return type.cast(running.server);
  }

  /** The store entry: closing the store closes the server. */
  private static final class Running<S> implements Store.CloseableResource {
    final S server;
    private final Consumer<S> stop;

    Running(S server, Consumer<S> stop) {
      this.server = server;
      this.stop = stop;
    }

    @Override
    public void close() {
      stop.accept(server);
    }
  }
}
