package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RESP encoding and reply mapping against a scripted fake server: one connection that records
 * everything the client sends and answers its n-th command with the n-th scripted reply, then
 * closes its side.
 */
class RespClientTest {

  private ServerSocket fake;
  private CompletableFuture<byte[]> received;

  @AfterEach
  void closeFake() throws IOException {
    fake.close();
  }

  @Test
  void command_sendsAnArrayOfBulkStrings() {
    script("+OK\r\n");
    try (RespClient client = connect()) {
      client.command("SET", "k", "é");
    }
    assertThat(new String(received.join(), StandardCharsets.UTF_8))
        .isEqualTo("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\né\r\n");
  }

  @Test
  void command_mapsEachReplyTypeToAJavaValue() {
    script("+PONG\r\n", ":-42\r\n", "$-1\r\n", "$6\r\nh\u00e9llo\r\n", "*-1\r\n",
        "*3\r\n$1\r\na\r\n:1\r\n*0\r\n");
    try (RespClient client = connect()) {
      assertThat(client.command("PING")).isEqualTo("PONG");
      assertThat(client.command("INCR")).isEqualTo(-42L);
      assertThat(client.command("GET")).isNull();
      assertThat(client.command("GET")).isEqualTo("héllo");
      assertThat(client.command("BLPOP")).isNull();
      assertThat(client.command("MGET")).isEqualTo(List.of("a", 1L, List.of()));
    }
  }

  @Test
  void command_throwsTopLevelErrorsAndStaysUsable() {
    script("-WRONGTYPE Operation against a key\r\n", "+OK\r\n");
    try (RespClient client = connect()) {
      assertThatThrownBy(() -> client.command("INCR", "k"))
          .isInstanceOfSatisfying(RespErrorException.class, e -> {
            assertThat(e.code()).isEqualTo("WRONGTYPE");
            assertThat(e).hasMessage("WRONGTYPE Operation against a key");
          });
      assertThat(client.command("PING")).isEqualTo("OK");
    }
  }

  @Test
  void command_returnsErrorsNestedInArraysAsElements() {
    script("*2\r\n+OK\r\n-ERR inner\r\n");
    try (RespClient client = connect()) {
      List<?> reply = (List<?>) client.command("EXEC");
      assertThat(reply.get(0)).isEqualTo("OK");
      assertThat(reply.get(1)).isInstanceOf(RespErrorException.class)
          .hasFieldOrPropertyWithValue("message", "ERR inner");
    }
  }

  @Test
  void command_whenTheServerClosesMidReply_throwsUncheckedIoException() {
    script("$10\r\nshort");
    try (RespClient client = connect()) {
      assertThatThrownBy(() -> client.command("GET", "k"))
          .isInstanceOf(UncheckedIOException.class).hasMessageContaining("GET");
    }
  }

  @Test
  void command_withoutArguments_isRejectedBeforeAnyIo() {
    script();
    try (RespClient client = connect()) {
      assertThatThrownBy(client::command).isInstanceOf(IllegalArgumentException.class);
    }
  }

  private RespClient connect() {
    return RespClient.connect("127.0.0.1", fake.getLocalPort(), Duration.ofSeconds(5));
  }

  private void script(String... replies) {
    try {
      fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    received = CompletableFuture.supplyAsync(() -> {
      try (Socket socket = fake.accept()) {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        for (String reply : replies) {
          readCommand(in, sent);
          socket.getOutputStream().write(reply.getBytes(StandardCharsets.UTF_8));
          socket.getOutputStream().flush();
        }
        socket.shutdownOutput();
        in.transferTo(sent);
        return sent.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** Reads one {@code *N} command of N bulk strings, copying its bytes into {@code sent}. */
  private static void readCommand(InputStream in, ByteArrayOutputStream sent) throws IOException {
    int args = Integer.parseInt(line(in, sent).substring(1));
    for (int i = 0; i < args; i++) {
      int length = Integer.parseInt(line(in, sent).substring(1));
      sent.write(in.readNBytes(length + 2));
    }
  }

  private static String line(InputStream in, ByteArrayOutputStream sent) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new IOException("client closed: " + Arrays.toString(line.toByteArray()));
      }
      line.write(b);
    }
    sent.write(line.toByteArray());
    sent.write('\n');
    return line.toString(StandardCharsets.UTF_8).trim();
  }
}
