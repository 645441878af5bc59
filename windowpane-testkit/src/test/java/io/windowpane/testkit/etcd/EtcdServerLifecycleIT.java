package io.windowpane.testkit.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/** {@link EtcdServer} started and closed by hand, without the extension. */
class EtcdServerLifecycleIT {

  @Test
  void close_stopsTheProcessFreesBothPortsAndDeletesTheDirectory() {
    EtcdServer server = EtcdServer.start();
    assertThat(server.process().isAlive()).isTrue();
    assertThat(server.dataDir().resolve("data")).isDirectory();

    server.close();

    assertThat(server.process().isAlive()).isFalse();
    assertThatThrownBy(() -> new Socket(server.host(), server.clientPort()).close())
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> new Socket(server.host(), server.peerPort()).close())
        .isInstanceOf(IOException.class);
    assertThat(server.dataDir()).doesNotExist();
  }

  @Test
  void close_isIdempotent() {
    EtcdServer server = EtcdServer.start();
    server.close();
    server.close();
    assertThat(server.process().isAlive()).isFalse();
  }
}
