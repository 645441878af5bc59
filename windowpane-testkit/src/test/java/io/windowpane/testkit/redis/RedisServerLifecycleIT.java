package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link RedisServer} started and closed by hand, without the extension. */
class RedisServerLifecycleIT {

  @Test
  void close_stopsTheProcessFreesThePortAndDeletesTheDirectory() {
    RedisServer server = RedisServer.start();
    assertThat(server.process().isAlive()).isTrue();
    assertThat(server.dataDir()).isDirectory();

    server.close();

    assertThat(server.process().isAlive()).isFalse();
    assertThatThrownBy(() -> new Socket(server.host(), server.port()).close())
        .isInstanceOf(IOException.class);
    assertThat(server.dataDir()).doesNotExist();
    assertThat(server).hasToString("RedisServer[" + server.uri() + ", pid "
        + server.process().pid() + ", closed]");
  }

  @Test
  void close_isIdempotent() {
    RedisServer server = RedisServer.start();
    server.close();
    server.close();
    assertThat(server.process().isAlive()).isFalse();
  }

  @Test
  void startWithPassword_requiresAuthAndClientAuthenticates() {
    try (RedisServer server = RedisServer.startWithPassword("s3cret")) {
      assertThat(server.password()).contains("s3cret");
      assertThat(server.uri()).doesNotContain("s3cret");
      try (RespClient anonymous = RespClient.connect(server.host(), server.port(),
          Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> anonymous.command("GET", "k"))
            .isInstanceOfSatisfying(RespErrorException.class,
                e -> assertThat(e.code()).isEqualTo("NOAUTH"));
      }
      try (RespClient client = server.client()) {
        assertThat(client.command("PING")).isEqualTo("PONG");
      }
    }
  }

  @Test
  void concurrentStarts_getDistinctPortsAndProcesses() {
    List<CompletableFuture<RedisServer>> starts = IntStream.range(0, 4)
        .mapToObj(i -> CompletableFuture.supplyAsync(RedisServer::start))
        .collect(Collectors.toList());
    try {
      List<RedisServer> servers = new ArrayList<>();
      starts.forEach(start -> servers.add(start.join()));
      assertThat(servers).extracting(RedisServer::port).doesNotHaveDuplicates();
      assertThat(servers).extracting(s -> s.process().pid()).doesNotHaveDuplicates();
      for (RedisServer server : servers) {
        try (RespClient client = server.client()) {
          assertThat(client.command("PING")).isEqualTo("PONG");
        }
      }
    } finally {
      for (CompletableFuture<RedisServer> start : starts) {
        try {
          start.join().close();
        } catch (CompletionException failedToStart) {
          // Nothing to close; join() above already failed the test.
        }
      }
    }
  }
}
