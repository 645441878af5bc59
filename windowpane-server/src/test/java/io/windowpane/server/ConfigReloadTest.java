package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.Http.Reply;
import io.windowpane.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's own configuration file reloaded while it runs, as the Envoy rules are: a
 * limiter whose permits changed decides the next request against them and keeps every key's
 * counts; a file that does not validate, and changes that take a restart, change nothing.
 * Driven by {@code reloadConfig()} (what the background check runs every second), with a
 * manual clock; one test waits for the background check itself.
 */
class ConfigReloadTest {

  static String config(String reloadInterval, long apiPermits, String apiWindow) {
    return String.join("\n",
        "server:",
        "  port: 0",
        "  reloadInterval: " + reloadInterval,
        "limiters:",
        "  api:",
        "    - { name: api, permits: " + apiPermits + ", window: " + apiWindow + " }",
        "  steady:",
        "    - { name: steady, permits: 1, window: 10s }",
        "");
  }

  private static Reply acquire(Http http, String limiter, String key) {
    return http.post("/v1/limiters/" + limiter + "/acquire", "{\"key\":\"" + key + "\"}");
  }

  @Test
  void changedPermits_decideTheNextRequest_keepTheCounts_andBadFilesChangeNothing(
      @TempDir Path dir) throws Exception {
    Path file = dir.resolve("windowpane.yaml");
    Files.writeString(file, config("0s", 2, "10s"));
    ManualClock clock = ManualClock.at(LocalApiTest.START);
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.load(file),
        Windowpane.localBuilder().clock(clock).build(), clock)) {
      Http http = new Http(server.url());
      assertThat(server.reloadConfig()).as("nothing changed").isEmpty();
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(429);
      assertThat(acquire(http, "steady", "k").status()).isEqualTo(200);

      // raised: the 2 counted stay, 2 more fit; the policy header follows
      Files.writeString(file, config("0s", 4, "10s"));
      assertThat(server.reloadConfig()).containsExactly("api");
      Reply raised = acquire(http, "api", "k");
      assertThat(raised.status()).isEqualTo(200);
      assertThat(raised.json().path("remaining").asLong()).isEqualTo(1);
      assertThat(raised.header("RateLimit-Policy")).contains("\"api\";q=4;w=10");
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(429);
      assertThat(acquire(http, "steady", "k").status()).as("untouched: still counted")
          .isEqualTo(429);

      // lowered: the key over it waits; a new key gets the new permits
      Files.writeString(file, config("0s", 1, "10s"));
      assertThat(server.reloadConfig()).containsExactly("api");
      assertThat(acquire(http, "api", "k").status()).isEqualTo(429);
      assertThat(acquire(http, "api", "fresh").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "fresh").status()).isEqualTo(429);

      // a file that does not validate: refused with the field, once; 1 stays in force
      Files.writeString(file, config("0s", 0, "10s"));
      assertThatThrownBy(server::reloadConfig).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("windowpane.yaml").hasMessageContaining("permits");
      assertThat(server.reloadConfig()).as("the same broken file, not reported again").isEmpty();
      assertThat(acquire(http, "api", "other").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "other").status()).isEqualTo(429);

      // another window takes a restart: nothing changes
      Files.writeString(file, config("0s", 1, "20s"));
      assertThat(server.reloadConfig()).isEmpty();
      Reply kept = acquire(http, "api", "k");
      assertThat(kept.header("RateLimit-Policy")).contains("\"api\";q=1;w=10");

      // a whole window later the raised key has room again under the permits in force
      clock.advance(Duration.ofSeconds(10));
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(429);
    }
  }

  @Test
  void theBackgroundCheck_appliesAnEditedFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("windowpane.yaml");
    Files.writeString(file, config("50ms", 1, "1h"));
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.load(file))) {
      Http http = new Http(server.url());
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(429);
      Files.writeString(file, config("50ms", 3, "1h"));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      int status = 429;
      while (status == 429 && System.nanoTime() < deadline) {
        Thread.sleep(20); // waits for the server's own poll: there is no event to wait on
        status = acquire(http, "api", "k").status();
      }
      assertThat(status).as("the edited file was applied").isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).isEqualTo(200);
      assertThat(acquire(http, "api", "k").status()).as("1 + 2 of 3").isEqualTo(429);
      assertThat(server.reloadConfig()).as("already applied").isEqualTo(List.of());
    }
  }
}
