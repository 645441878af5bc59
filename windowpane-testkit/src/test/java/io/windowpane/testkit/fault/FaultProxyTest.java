package io.windowpane.testkit.fault;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link FaultProxy} between plain sockets and an in-test echo server. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FaultProxyTest {

  private static final int READ_TIMEOUT_MILLIS = 3_000;

  private EchoServer echo;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.start("127.0.0.1", echo.port());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void start_listensOnLoopback_inPassMode() {
    assertThat(proxy.host()).isEqualTo("127.0.0.1");
    assertThat(proxy.port()).isBetween(1, 65_535).isNotEqualTo(echo.port());
    assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.PASS);
    assertThat(proxy.openConnections()).isZero();
    assertThat(proxy.bytesForwarded()).isZero();
  }

  @Test
  void pass_forwardsBothWays_andCountsEveryByte() throws IOException {
    try (Socket client = connect()) {
      assertThat(roundTrip(client, "hello")).isEqualTo("hello");

      assertThat(proxy.bytesForwarded()).isEqualTo(10); // 5 up, 5 down
      assertThat(proxy.openConnections()).isEqualTo(1);
    }
  }

  @Test
  void pass_forwardsAMegabyteInOrder_whileBothDirectionsRun() throws Exception {
    byte[] sent = new byte[1 << 20];
    new Random(42).nextBytes(sent);
    try (Socket client = connect()) {
      CompletableFuture<Void> writer = writeAsync(client, sent);

      byte[] received = client.getInputStream().readNBytes(sent.length);

      writer.get(2, TimeUnit.SECONDS);
      assertThat(Arrays.equals(received, sent)).as("bytes equal, in order").isTrue();
    }
  }

  @Test
  void pass_forwardsAHalfClose_andTheServersCloseComesBack() throws IOException {
    try (Socket client = connect()) {
      client.getOutputStream().write("bye".getBytes(US_ASCII));
      client.shutdownOutput();

      InputStream in = client.getInputStream();
      assertThat(new String(in.readNBytes(3), US_ASCII)).isEqualTo("bye");
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void latency_delaysEachDirection_byAtLeastTheOneWayDelay() throws IOException {
    try (Socket client = connect()) {
      roundTrip(client, "warm");
      proxy.latency(Duration.ofMillis(150));

      long started = System.nanoTime();
      assertThat(roundTrip(client, "x")).isEqualTo("x");
      long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

      assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.LATENCY);
      assertThat(elapsedMillis).isBetween(300L, 300L + 1_500);
    }
  }

  @Test
  void pass_afterLatency_forwardsWithoutTheDelay() throws IOException {
    try (Socket client = connect()) {
      proxy.latency(Duration.ofSeconds(3));
      proxy.pass();

      long started = System.nanoTime();
      roundTrip(client, "x");

      assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(1));
    }
  }

  @Test
  void latency_zeroIsPass_andOutOfRangeIsRefused() {
    proxy.latency(Duration.ZERO);
    assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.PASS);

    assertThatThrownBy(() -> proxy.latency(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("oneWay");
    assertThatThrownBy(() -> proxy.latency(Duration.ofHours(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..PT1H");
  }

  @Test
  void blackHole_holdsBytesOnTheSameConnection_andPassDeliversThemInOrder() throws Exception {
    try (Socket client = connect()) {
      roundTrip(client, "before");
      proxy.blackHole();

      client.getOutputStream().write("one".getBytes(US_ASCII));
      client.setSoTimeout(200);
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      byte[] more = new byte[256 * 1024];
      new Random(7).nextBytes(more);
      CompletableFuture<Void> writer = writeAsync(client, more); // may block on full buffers

      proxy.pass();

      client.setSoTimeout(READ_TIMEOUT_MILLIS);
      InputStream in = client.getInputStream();
      assertThat(new String(in.readNBytes(3), US_ASCII)).isEqualTo("one");
      assertThat(Arrays.equals(in.readNBytes(more.length), more)).as("held bytes in order").isTrue();
      writer.get(2, TimeUnit.SECONDS);
      assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.PASS);
    }
  }

  @Test
  void blackHole_acceptsNewConnections_andHoldsThemUntilPass() throws IOException {
    proxy.blackHole();
    try (Socket client = connect()) {
      client.getOutputStream().write("late".getBytes(US_ASCII));
      client.setSoTimeout(200);
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);

      proxy.pass();

      client.setSoTimeout(READ_TIMEOUT_MILLIS);
      assertThat(new String(client.getInputStream().readNBytes(4), US_ASCII)).isEqualTo("late");
      assertThat(proxy.openConnections()).isEqualTo(1); // the held one, not a new one
    }
  }

  @Test
  void dropConnections_resetsOpenConnections_andLaterConnectionsWork() throws IOException {
    try (Socket dropped = connect()) {
      roundTrip(dropped, "a");

      proxy.dropConnections();

      assertThat(proxy.openConnections()).isZero();
      assertEndOfStreamOrReset(dropped);
    }
    try (Socket later = connect()) {
      assertThat(roundTrip(later, "b")).isEqualTo("b");
    }
    assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.PASS);
  }

  @Test
  void dropConnections_duringABlackHole_releasesTheHeldConnections() throws IOException {
    try (Socket held = connect()) {
      roundTrip(held, "a");
      proxy.blackHole();
      held.getOutputStream().write("held".getBytes(US_ASCII));

      proxy.dropConnections();

      assertEndOfStreamOrReset(held);
      assertThat(proxy.mode()).isEqualTo(FaultProxy.Mode.BLACK_HOLE);
    }
  }

  @Test
  void refuseConnects_failsNewConnects_keepsOpenOnes_andFalseRestoresThem() throws IOException {
    try (Socket open = connect()) {
      roundTrip(open, "a");

      proxy.refuseConnects(true);

      assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
      assertThat(roundTrip(open, "still")).isEqualTo("still");

      proxy.refuseConnects(false);

      try (Socket again = connect()) {
        assertThat(roundTrip(again, "b")).isEqualTo("b");
      }
    }
  }

  @Test
  void aTargetThatRefuses_resetsTheClientConnection() throws IOException {
    try (FaultProxy toNowhere = FaultProxy.start("127.0.0.1", portNobodyListensOn());
        Socket client = new Socket()) {
      try {
        client.connect(new InetSocketAddress(toNowhere.host(), toNowhere.port()), 1_000);
      } catch (SocketException e) { // the reset may overtake the end of the client's connect
        assertThat(e).hasMessageContaining("reset");
        return;
      }

      assertEndOfStreamOrReset(client);
    }
  }

  @Test
  void retarget_sendsLaterConnectionsToTheNewTarget_andLeavesOpenOnes() throws IOException {
    try (Socket open = connect()) {
      roundTrip(open, "a");

      proxy.retarget("127.0.0.1", portNobodyListensOn());

      assertThat(roundTrip(open, "still")).isEqualTo("still");
      try (Socket later = connect()) {
        assertEndOfStreamOrReset(later);
      } catch (SocketException e) {
        assertThat(e).hasMessageContaining("reset");
      }
      proxy.retarget("127.0.0.1", echo.port());
      try (Socket again = connect()) {
        assertThat(roundTrip(again, "b")).isEqualTo("b");
      }
    }
  }

  @Test
  void close_freesThePort_resetsConnections_andEndsEveryThread() throws IOException {
    Socket client = connect();
    roundTrip(client, "a");
    int port = proxy.port();

    proxy.close();

    assertEndOfStreamOrReset(client);
    client.close();
    try (ServerSocket rebound = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      assertThat(rebound.getLocalPort()).isEqualTo(port);
    }
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("fault-proxy-" + port + "-") && t.isAlive());
    proxy.close(); // idempotent
    assertThatThrownBy(() -> proxy.refuseConnects(false))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void startAndRetarget_refuseAPortOutOfRange() {
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..65535");
    assertThatThrownBy(() -> proxy.retarget("127.0.0.1", 65_536))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..65535");
  }

  private static int portNobodyListensOn() throws IOException {
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return free.getLocalPort();
    }
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(proxy.host(), proxy.port()), 1_000);
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    socket.setTcpNoDelay(true);
    return socket;
  }

  private static String roundTrip(Socket socket, String text) throws IOException {
    byte[] bytes = text.getBytes(US_ASCII);
    socket.getOutputStream().write(bytes);
    return new String(socket.getInputStream().readNBytes(bytes.length), US_ASCII);
  }

  private static CompletableFuture<Void> writeAsync(Socket socket, byte[] bytes) {
    return CompletableFuture.runAsync(() -> {
      try {
        socket.getOutputStream().write(bytes);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static void assertEndOfStreamOrReset(Socket socket) throws IOException {
    socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    try {
      assertThat(socket.getInputStream().read()).isEqualTo(-1);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the connection is still open", e);
    } catch (IOException e) {
      assertThat(e).hasMessageContaining("reset");
    }
  }
}
