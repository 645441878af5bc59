package io.windowpane.server.rls;

import static io.windowpane.server.rls.RlsClient.d;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.WindowpaneServer;
import io.windowpane.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rules reloaded when their files change, as envoyproxy/ratelimit reloads its runtime
 * directory: new rules in force at once, unchanged rules keep their counts, a change that does
 * not load keeps the rules in force. Driven by {@code reloadRlsRules()} (what the background
 * check runs every second), with a manual clock.
 */
class RlsReloadTest {

  static String rules(String domain, long keep, long changing) {
    return String.join("\n", "domain: " + domain, "descriptors:",
        "  - key: keep", "    rate_limit: {unit: minute, requests_per_unit: " + keep + "}",
        "  - key: changing", "    rate_limit: {unit: minute, requests_per_unit: " + changing
            + "}", "");
  }

  @Test
  void changedFiles_newRulesAtOnce_unchangedRulesKeepTheirCounts_badChangesKeepTheOld(
      @TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("a.yaml"), rules("app", 5, 2));
    ManualClock clock = ManualClock.at(1_700_000_000_250L);
    try (WindowpaneServer server = WindowpaneServer.start(ServerConfig.parse(
            EnvoyRlsTest.config(dir, "  reloadInterval: 0s"), "test.yaml"),
            Windowpane.localBuilder().clock(clock).build(), clock);
        RlsClient rls = new RlsClient(server.grpcPort().getAsInt())) {
      assertThat(server.reloadRlsRules()).as("nothing changed").isFalse();
      rls.call("app", d("keep=x"));
      rls.call("app", d("keep=x"));
      rls.call("app", d("changing=x"));
      rls.call("app", d("changing=x"));
      assertThat(rls.call("app", d("changing=x")).getOverallCode()).isEqualTo(Code.OVER_LIMIT);

      // A raised limit and a new domain in a new file.
      Files.writeString(dir.resolve("a.yaml"), rules("app", 5, 3));
      Files.createDirectories(dir.resolve("more"));
      Files.writeString(dir.resolve("more/b.yml"), rules("other", 1, 1));
      assertThat(server.reloadRlsRules()).isTrue();
      assertThat(rls.call("app", d("keep=x")).getStatuses(0).getLimitRemaining())
          .as("an unchanged rule keeps its count").isEqualTo(2);
      assertThat(rls.call("app", d("changing=x")).getStatuses(0).getLimitRemaining())
          .as("a changed limit counts afresh").isEqualTo(2);
      assertThat(rls.call("other", d("keep=y")).getOverallCode()).isEqualTo(Code.OK);
      assertThat(server.reloadRlsRules()).isFalse();

      // A broken change: refused with its file and field, the rules in force stay, once.
      Files.writeString(dir.resolve("more/b.yml"), "domain: other\ndescriptors:\n"
          + "  - key: k\n    rate_limit: {unit: sec, requests_per_unit: 1}\n");
      assertThatThrownBy(server::reloadRlsRules).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("b.yml").hasMessageContaining("rate_limit.unit");
      assertThat(server.reloadRlsRules()).as("the same broken files, not reported again")
          .isFalse();
      assertThat(rls.call("other", d("keep=y")).getOverallCode()).isEqualTo(Code.OVER_LIMIT);

      // Removing a file removes its domain.
      Files.delete(dir.resolve("more/b.yml"));
      assertThat(server.reloadRlsRules()).isTrue();
      assertThatThrownBy(() -> rls.call("other", d("keep=y")))
          .isInstanceOfSatisfying(StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
      assertThat(rls.call("app", d("keep=x")).getStatuses(0).getLimitRemaining()).isEqualTo(1);
    }
  }
}
