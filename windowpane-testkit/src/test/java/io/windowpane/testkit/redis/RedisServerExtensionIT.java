package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The extension against a real {@code redis-server}. {@link AssertStoppedAfterAll} is registered
 * first, so its {@code afterAll} runs after the extension's and checks that the server is gone.
 */
@ExtendWith(RedisServerExtensionIT.AssertStoppedAfterAll.class)
@ExtendWith(RedisServerExtension.class)
class RedisServerExtensionIT {

  private static final AtomicReference<RedisServer> FIRST_INJECTED = new AtomicReference<>();

  private final RedisServer redis;

  RedisServerExtensionIT(RedisServer redis) {
    this.redis = redis;
    FIRST_INJECTED.compareAndSet(null, redis);
  }

  @Test
  void server_answersPing() {
    try (RespClient client = redis.client()) {
      assertThat(client.command("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void setThenGet_returnsTheValue() {
    try (RespClient client = redis.client()) {
      assertThat(client.command("SET", "greeting", "héllo wörld")).isEqualTo("OK");
      assertThat(client.command("GET", "greeting")).isEqualTo("héllo wörld");
      assertThat(client.command("GET", "absent")).isNull();
      assertThat(client.command("INCRBY", "counter", "41")).isEqualTo(41L);
      client.command("RPUSH", "list", "a", "b");
      assertThat(client.command("LRANGE", "list", "0", "-1")).isEqualTo(List.of("a", "b"));
      assertThatThrownBy(() -> client.command("NO-SUCH-COMMAND"))
          .isInstanceOfSatisfying(RespErrorException.class,
              e -> assertThat(e.code()).isEqualTo("ERR"));
    }
  }

  @Test
  void server_isBoundToLoopbackWithPersistenceOff() {
    assertThat(redis.host()).isEqualTo("127.0.0.1");
    assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
    assertThat(redis.password()).isEmpty();
    try (RespClient client = redis.client()) {
      assertThat(client.command("CONFIG", "GET", "bind")).isEqualTo(List.of("bind", "127.0.0.1"));
      assertThat(client.command("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
      assertThat(client.command("CONFIG", "GET", "appendonly"))
          .isEqualTo(List.of("appendonly", "no"));
      assertThat((String) client.command("INFO", "server"))
          .contains("process_id:" + redis.process().pid() + "\r\n");
    }
  }

  @Test
  void server_refusesConnectionsOnNonLoopbackAddresses() throws SocketException {
    Optional<InetAddress> external = nonLoopbackIpv4();
    assumeThat(external).as("a non-loopback IPv4 address on this machine").isPresent();
    assertThatThrownBy(() -> {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(external.get(), redis.port()), 1_000);
      }
    }).isInstanceOf(IOException.class);
  }

  @Test
  void everyTestOfTheClass_getsTheSameServer() {
    assertThat(redis).isSameAs(FIRST_INJECTED.get());
  }

  @Test
  void methodParameter_isTheConstructorsServer(RedisServer parameter) {
    assertThat(parameter).isSameAs(redis);
  }

  @Nested
  class NestedClass {

    @Test
    void sharesTheEnclosingClassServer(RedisServer parameter) {
      assertThat(parameter).isSameAs(redis).isSameAs(FIRST_INJECTED.get());
    }
  }

  static Optional<InetAddress> nonLoopbackIpv4() throws SocketException {
    return NetworkInterface.networkInterfaces()
        .filter(nic -> {
          try {
            return nic.isUp() && !nic.isLoopback();
          } catch (SocketException e) {
            return false;
          }
        })
        .flatMap(NetworkInterface::inetAddresses)
        .filter(address -> address instanceof Inet4Address && !address.isLoopbackAddress()
            && !address.isLinkLocalAddress())
        .findFirst();
  }

  /** Runs after the extension's afterAll: the server must be stopped and its port closed. */
  static final class AssertStoppedAfterAll implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
      if (context.getRequiredTestClass() != RedisServerExtensionIT.class) {
        return; // the @Nested class: the server rightly outlives it
      }
      RedisServer server = FIRST_INJECTED.get();
      assertThat(server).as("a server was injected").isNotNull();
      assertThat(server.process().isAlive()).as("redis-server process alive").isFalse();
      assertThatThrownBy(() -> new Socket("127.0.0.1", server.port()).close())
          .as("connecting to the old port").isInstanceOf(IOException.class);
      assertThat(server.dataDir()).doesNotExist();
    }
  }
}
