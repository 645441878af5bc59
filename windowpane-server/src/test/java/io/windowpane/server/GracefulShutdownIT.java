package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Stopping the service lets a request in flight finish and refuses new connections. Redis holds
 * the request: {@code CLIENT PAUSE ... WRITE} postpones the engine's {@code FCALL} until the
 * pause ends, and {@code INFO clients} shows when it is waiting.
 */
class GracefulShutdownIT {

  @Test
  void close_letsTheRequestInFlightFinish_andRefusesNewConnections() throws Exception {
    try (RedisServer redis = RedisServer.start();
        RespClient admin = redis.client()) {
      WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(String.join("\n",
          "server:",
          "  port: 0",
          "  shutdownTimeout: 10s",
          "engine:",
          "  type: redis",
          "  redis:",
          "    uri: " + redis.uri(),
          "    timeout: 10s",
          "limiters:",
          "  demo:",
          "    - permits: 2",
          "      window: 10s",
          ""), "graceful.yaml"));
      int port = server.port();
      HttpClient client = HttpClient.newHttpClient();
      // warm the engine's connection, so that the paused request is the only one waiting
      assertThat(new Http(server.url()).get("/health").status()).isEqualTo(200);

      admin.command("CLIENT", "PAUSE", "1500", "WRITE");
      CompletableFuture<HttpResponse<String>> inFlight = client.sendAsync(
          HttpRequest.newBuilder(URI.create(server.url() + "/v1/limiters/demo/acquire"))
              .POST(HttpRequest.BodyPublishers.ofString("{\"key\":\"a\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      awaitBlockedClients(admin, 1);

      CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
      awaitRefused(port);
      assertThat(inFlight).isNotDone();

      HttpResponse<String> reply = inFlight.get(10, TimeUnit.SECONDS);
      assertThat(reply.statusCode()).isEqualTo(200);
      assertThat(reply.body()).contains("\"allowed\":true");
      closing.get(15, TimeUnit.SECONDS);
      assertThatThrownBy(() -> new Socket().connect(new InetSocketAddress("127.0.0.1", port), 500))
          .isInstanceOf(IOException.class);
    }
  }

  private static void awaitBlockedClients(RespClient admin, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!String.valueOf(admin.command("INFO", "clients")).contains("blocked_clients:" + n)) {
      assertThat(System.nanoTime()).as("a request waiting in Redis").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static void awaitRefused(int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      } catch (IOException refused) {
        return;
      }
      assertThat(System.nanoTime()).as("the port closed").isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
