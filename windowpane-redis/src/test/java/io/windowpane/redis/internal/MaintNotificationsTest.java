package io.windowpane.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import org.junit.jupiter.api.Test;

/**
 * Maintenance notifications are switched off on Lettuce 7 and ignored on Lettuce 6.8. Which
 * tests run depends on the Lettuce on the class path: 7.x by default, 6.8 with
 * {@code -Dlettuce.version=6.8.2.RELEASE}. Reflection reads the result, so the test compiles
 * against both.
 */
class MaintNotificationsTest {

  private static boolean lettuceHasNotifications() {
    try {
      Class.forName("io.lettuce.core.MaintNotificationsConfig");
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private static boolean notificationsEnabled(ClientOptions options) throws Exception {
    Object config = ClientOptions.class.getMethod("getMaintNotificationsConfig").invoke(options);
    return (Boolean) config.getClass().getMethod("maintNotificationsEnabled").invoke(config);
  }

  @Test
  void supported_exactlyWhenLettuceHasTheConfigClass() {
    assertThat(MaintNotifications.supported()).isEqualTo(lettuceHasNotifications());
  }

  @Test
  void disable_onLettuce7_switchesThemOffForStandaloneAndCluster() throws Exception {
    assumeTrue(lettuceHasNotifications(), "Lettuce before 7.0 has no maintenance notifications");
    assertThat(notificationsEnabled(ClientOptions.builder().build())).isTrue(); // Lettuce's default
    ClientOptions.Builder standalone = ClientOptions.builder();
    MaintNotifications.disable(standalone);
    assertThat(notificationsEnabled(standalone.build())).isFalse();

    ClusterClientOptions.Builder cluster = ClusterClientOptions.builder();
    MaintNotifications.disable(cluster);
    assertThat(notificationsEnabled(cluster.build())).isFalse();
  }

  @Test
  void disable_onLettuce6_leavesTheOptionsAsTheyWere() {
    assumeFalse(lettuceHasNotifications(), "Lettuce 7 has maintenance notifications");
    ClientOptions.Builder standalone = ClientOptions.builder();
    MaintNotifications.disable(standalone);
    ClusterClientOptions.Builder cluster = ClusterClientOptions.builder();
    MaintNotifications.disable(cluster);
    assertThat(standalone.build()).isNotNull();
    assertThat(cluster.build()).isNotNull();
  }
}
