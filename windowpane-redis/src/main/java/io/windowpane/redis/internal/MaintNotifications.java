package io.windowpane.redis.internal;

import io.lettuce.core.ClientOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * Switches Lettuce's maintenance notifications off on a client's options where the Lettuce on
 * the class path has them (7.0 and later), and does nothing where it has not (6.x). Stateless
 * after class initialisation; thread-safe.
 */
final class MaintNotifications {

  /*
   * Design note. Lettuce 7 added maintenance notifications (MaintNotificationsConfig and
   * ClientOptions.Builder.maintNotificationsConfig): Redis Enterprise / Cloud push messages that
   * announce a failover or a slot move, asked for at every connection's handshake. The engine
   * turns them off (LettuceSeam's design note says why). Lettuce 6.8, the version Spring Boot
   * 4.0.x manages, has neither the class nor the builder method, so an application on Boot's
   * dependency management runs the engine, compiled against 7.x, on 6.8: a direct call there
   * fails with NoClassDefFoundError: io/lettuce/core/MaintNotificationsConfig.
   *
   * Why reflection, looked up once. A direct call in a holder class that is only loaded behind a
   * class-presence check would work as well at run time, but the module would then no longer
   * compile against 6.8, and compiling and running its tests with -Dlettuce.version=6.8.x.RELEASE
   * is the plainest way to try it on 6.8 (examples/spring-boot-parent-demo's LettuceLinkageTest
   * checks the references of the 7.x-built classes against Boot's Lettuce in every build). The
   * cost is two lookups per JVM and one Method.invoke per client created, never per call. When the lookup fails (Lettuce 6.x,
   * or a later Lettuce that renamed the API) nothing is set: on 6.x there are no notifications to
   * switch off, and on a renamed API Lettuce's own default applies, as before the engine chose.
   */

  private static final String CONFIG_CLASS = "io.lettuce.core.MaintNotificationsConfig";

  /** {@code ClientOptions.Builder.maintNotificationsConfig(config)}, or null without it. */
  private static final Method SETTER;
  /** {@code MaintNotificationsConfig.disabled()}, or null without it. */
  private static final Object DISABLED;

  static {
    Method setter = null;
    Object disabled = null;
    try {
      Class<?> config = Class.forName(CONFIG_CLASS, false, ClientOptions.class.getClassLoader());
      disabled = config.getMethod("disabled").invoke(null);
      setter = ClientOptions.Builder.class.getMethod("maintNotificationsConfig", config);
    } catch (ReflectiveOperationException | LinkageError e) {
      setter = null; // Lettuce 6.x: no maintenance notifications
      disabled = null;
    }
    SETTER = setter;
    DISABLED = disabled;
  }

  private MaintNotifications() {}

  /** Whether this Lettuce has maintenance notifications (7.0 and later). */
  static boolean supported() {
    return SETTER != null;
  }

  /**
   * Sets {@code options} to keep maintenance notifications off when this Lettuce has them;
   * otherwise leaves {@code options} as it is. Works for {@code ClusterClientOptions.Builder}
   * too (a subclass).
   */
  static void disable(ClientOptions.Builder options) {
    if (SETTER == null) {
      return;
    }
    try {
      SETTER.invoke(options, DISABLED);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot call " + SETTER, e);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException r ? r
          : new IllegalStateException("cannot call " + SETTER, cause);
    }
  }
}
