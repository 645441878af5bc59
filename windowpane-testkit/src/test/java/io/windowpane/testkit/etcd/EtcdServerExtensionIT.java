package io.windowpane.testkit.etcd;

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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The extension against a real {@code etcd}, spoken to through its HTTP/JSON gateway.
 * {@link AssertStoppedAfterAll} is registered first, so its {@code afterAll} runs after the
 * extension's and checks that the server is gone.
 */
@ExtendWith(EtcdServerExtensionIT.AssertStoppedAfterAll.class)
@ExtendWith(EtcdServerExtension.class)
class EtcdServerExtensionIT {

  private static final AtomicReference<EtcdServer> FIRST_INJECTED = new AtomicReference<>();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final EtcdServer etcd;

  EtcdServerExtensionIT(EtcdServer etcd) {
    this.etcd = etcd;
    FIRST_INJECTED.compareAndSet(null, etcd);
  }

  @Test
  void health_reportsTrue() throws Exception {
    HttpResponse<String> health = HTTP.send(
        HttpRequest.newBuilder(URI.create(etcd.endpoint() + "/health")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"health\":\"true\"");
  }

  @Test
  void putThenRange_returnsTheValue() throws Exception {
    String key = base64("windowpane/greeting");
    String value = base64("héllo");
    post("/v3/kv/put", "{\"key\":\"" + key + "\",\"value\":\"" + value + "\"}");
    assertThat(post("/v3/kv/range", "{\"key\":\"" + key + "\"}"))
        .contains("\"value\":\"" + value + "\"").contains("\"count\":\"1\"");
  }

  @Test
  void server_listensOnLoopbackOnly() throws SocketException {
    assertThat(etcd.host()).isEqualTo("127.0.0.1");
    assertThat(etcd.endpoint()).isEqualTo("http://127.0.0.1:" + etcd.clientPort());
    assertThat(etcd.peerPort()).isNotEqualTo(etcd.clientPort());
    Optional<InetAddress> external = nonLoopbackIpv4();
    assumeThat(external).as("a non-loopback IPv4 address on this machine").isPresent();
    for (int port : new int[] {etcd.clientPort(), etcd.peerPort()}) {
      assertThatThrownBy(() -> {
        try (Socket socket = new Socket()) {
          socket.connect(new InetSocketAddress(external.get(), port), 1_000);
        }
      }).isInstanceOf(IOException.class);
    }
  }

  @Test
  void everyTestOfTheClass_getsTheSameServer() {
    assertThat(etcd).isSameAs(FIRST_INJECTED.get());
  }

  @Test
  void methodParameter_isTheConstructorsServer(EtcdServer parameter) {
    assertThat(parameter).isSameAs(etcd);
  }

  private String post(String path, String json) throws Exception {
    HttpResponse<String> response = HTTP.send(
        HttpRequest.newBuilder(URI.create(etcd.endpoint() + path))
            .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("%s -> %s", path, response.body()).isEqualTo(200);
    return response.body();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static Optional<InetAddress> nonLoopbackIpv4() throws SocketException {
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

  /** Runs after the extension's afterAll: the server must be stopped and its ports closed. */
  static final class AssertStoppedAfterAll implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
      EtcdServer server = FIRST_INJECTED.get();
      assertThat(server).as("a server was injected").isNotNull();
      assertThat(server.process().isAlive()).as("etcd process alive").isFalse();
      assertThatThrownBy(() -> new Socket("127.0.0.1", server.clientPort()).close())
          .as("connecting to the old client port").isInstanceOf(IOException.class);
      assertThat(server.dataDir()).doesNotExist();
    }
  }
}
