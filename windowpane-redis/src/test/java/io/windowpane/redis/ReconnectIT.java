package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.WindowpaneException;
import io.windowpane.testkit.process.ServerProcess;
import io.windowpane.testkit.process.TestBinaries;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RespClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Tag;

/**
 * A Redis that is killed (SIGKILL) and restarted on the same port some seconds later: calls fail
 * at once while it is down, and work again within about a second of it answering, its function
 * library reloaded by itself (the restarted server has none). Lettuce's default reconnection
 * delays double up to 30 s: after 6 s down its next attempt would come about 8.2 s after the
 * kill, 2 s late; the engine caps them at 500 ms.
 */
@Tag("wall-clock") // real time or killed processes: run with no other test JVM beside (pom.xml)
class ReconnectIT {

  private static final long DOWN_MILLIS = 6_000;
  /** The cap (500 ms), a reconnect and a library load, on a loaded 2-core machine. */
  private static final long BACK_WITHIN_MILLIS = 1_200;

  @ParameterizedTest
  @EnumSource(value = ScriptMode.class, names = {"FUNCTIONS", "EVALSHA"})
  void killedAndRestartedOnTheSamePort_callsWorkAgainWithinASecond(ScriptMode mode)
      throws Exception {
    RedisServer first = RedisServer.start();
    int port = first.port();
    Process second = null;
    Path dir = Files.createTempDirectory("windowpane-reconnect-");
    try (Windowpane wp = Windowpane.using(RedisEngine.builder().uri(first.uri()).scripts(mode)
        .timeout(Duration.ofMillis(300)).build())) {
      WindowCounter counter = wp.counter("reconnect", WindowSpec.panes(Duration.ofMinutes(1), 60));
      assertThat(counter.add("k")).isEqualTo(1);

      first.process().destroyForcibly();
      first.process().onExit().get(10, TimeUnit.SECONDS);
      long killed = System.nanoTime();
      while (millisSince(killed) < DOWN_MILLIS) {
        long call = System.nanoTime();
        assertThatThrownBy(() -> counter.add("k")).isInstanceOf(WindowpaneException.class);
        assertThat(millisSince(call)).as("a call while Redis is down fails fast")
            .isLessThan(1_000);
        Thread.sleep(100); // the length of the outage, not a synchronization
      }

      second = start(port, dir);
      long answering = System.nanoTime();
      long back = -1;
      while (back < 0 && millisSince(answering) < 10_000) {
        try {
          assertThat(counter.add("k")).as("a new server, empty").isEqualTo(1);
          back = millisSince(answering);
        } catch (WindowpaneException e) {
          Thread.sleep(10);
        }
      }
      System.out.printf("ReconnectIT %s: calls work again %d ms after Redis answered%n", mode,
          back);
      assertThat(back).as("ms from Redis answering to the first call that works")
          .isBetween(0L, BACK_WITHIN_MILLIS);
    } finally {
      first.close();
      if (second != null) {
        second.destroyForcibly();
        second.onExit().get(10, TimeUnit.SECONDS);
      }
      ServerProcess.deleteRecursively(dir);
    }
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  /** redis-server on {@code port} (the dead one's), returned once it answers PING. */
  private static Process start(int port, Path dir) throws Exception {
    Process p = new ProcessBuilder(List.of(TestBinaries.REDIS_SERVER.locate().toString(),
        "--port", Integer.toString(port), "--bind", ServerProcess.HOST, "--save", "",
        "--appendonly", "no", "--dir", dir.toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    long started = System.nanoTime();
    while (millisSince(started) < 10_000) {
      assertThat(p.isAlive()).as("redis-server on port %d: %s", port,
          ServerProcess.tail(dir.resolve("redis.log"))).isTrue();
      try (RespClient c = RespClient.connect(ServerProcess.HOST, port, Duration.ofMillis(200))) {
        if ("PONG".equals(c.command("PING"))) {
          return p;
        }
      } catch (RuntimeException notYet) {
        Thread.sleep(5);
      }
    }
    throw new IllegalStateException("redis-server on port " + port + " did not answer PING");
  }
}
