package io.windowpane.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.windowpane.Limit;
import io.windowpane.Quota;
import io.windowpane.RateLimiter;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.Windowpane;
import io.windowpane.redis.internal.FunctionLibrary;
import io.windowpane.spi.LimiterStore;
import io.windowpane.testkit.redis.RedisServer;
import io.windowpane.testkit.redis.RedisServerExtension;
import io.windowpane.testkit.redis.RespClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Both ways of running the library: FUNCTION LOAD when absent or older (never downgrading a
 * newer one), reloading after the library vanished, and EVALSHA reloading after NOSCRIPT.
 */
@ExtendWith(RedisServerExtension.class)
class LibraryLoadingIT {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private final RedisServer redis;

  LibraryLoadingIT(RedisServer redis) {
    this.redis = redis;
  }

  @BeforeEach
  void emptyServer() {
    try (RespClient c = redis.client()) {
      c.command("FUNCTION", "FLUSH");
      c.command("SCRIPT", "FLUSH");
      c.command("FLUSHALL");
    }
  }

  private RedisEngine engine(ScriptMode mode) {
    return RedisEngine.builder().uri(redis.uri()).scripts(mode).build();
  }

  private Object version(RespClient c) {
    return c.command("FCALL", "wp_version", "0");
  }

  @Test
  void auto_onRedis7_loadsTheFunctionLibraryWhenAbsent() {
    RedisEngine engine = engine(ScriptMode.AUTO);
    try (Windowpane wp = Windowpane.using(engine); RespClient c = redis.client()) {
      assertThat(engine.usesFunctions()).isTrue();
      assertThat(version(c)).isEqualTo((long) FunctionLibrary.bundled().version());
      assertThat(wp.counter("c", WindowSpec.panes(SECOND, 10)).add("k")).isEqualTo(1);
    }
  }

  @Test
  void anOlderLibrary_isReplaced_aNewerOneIsKept() {
    String text = FunctionLibrary.bundled().functionText();
    int ours = FunctionLibrary.bundled().version();
    try (RespClient c = redis.client()) {
      c.command("FUNCTION", "LOAD", "REPLACE", withVersion(text, ours, 0));
      assertThat(version(c)).isEqualTo(0L);
      engine(ScriptMode.FUNCTIONS).close();
      assertThat(version(c)).as("older replaced").isEqualTo((long) ours);

      c.command("FUNCTION", "LOAD", "REPLACE", withVersion(text, ours, ours + 1));
      try (Windowpane wp = Windowpane.using(engine(ScriptMode.FUNCTIONS))) {
        assertThat(version(c)).as("newer kept").isEqualTo((long) ours + 1);
        assertThat(wp.counter("c", WindowSpec.log(SECOND)).add("k", 3)).isEqualTo(3);
      }
    }
  }

  @Test
  void anOlderLibraryWithoutLeasing_isReplaced_andReloadedWhenLoadedBackByHand() {
    String text = FunctionLibrary.bundled().functionText();
    int ours = FunctionLibrary.bundled().version();
    // a library of version 0 that registers neither wp_lease nor wp_release nor wp_group (nor
    // the event-time functions)
    String older = withVersion(text, ours, 0).replace(", 'wp_lease', 'wp_release', 'wp_group',"
        + " 'wp_add_at',\n  'wp_record_at', 'wp_xrecord_at'}", "}");
    assertThat(older).doesNotContain("'wp_lease'");
    Quota quota = Quota.of(Limit.of(5, WindowSpec.panes(Duration.ofHours(1), 10)));
    try (RespClient c = redis.client()) {
      c.command("FUNCTION", "LOAD", "REPLACE", older);
      assertThat(version(c)).isEqualTo(0L);
      try (RedisEngine engine = engine(ScriptMode.FUNCTIONS)) {
        assertThat(version(c)).as("upgraded at start").isEqualTo((long) ours);
        LimiterStore limiter = engine.limiterStore("lease", quota);
        assertThat(limiter.lease("k", 1, 3).orElseThrow().permits()).isEqualTo(3);
        c.command("FUNCTION", "LOAD", "REPLACE", older); // an older engine's library, by hand
        assertThat(limiter.lease("k", 1, 3).orElseThrow().permits())
            .as("'Function not found': reloaded, then called again").isEqualTo(2);
        assertThat(version(c)).isEqualTo((long) ours);
      }
    }
  }

  /** The library's parts are the lua directory's files, in name order: cat *.lua assembles it. */
  @Test
  void theLibrary_isItsPartsInNameOrder() throws Exception {
    java.nio.file.Path dir = java.nio.file.Path.of("src/main/resources/io/windowpane/redis/lua");
    List<String> files;
    try (java.util.stream.Stream<java.nio.file.Path> listed = java.nio.file.Files.list(dir)) {
      files = listed.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua"))
          .sorted().toList();
    }
    assertThat(FunctionLibrary.parts()).isEqualTo(files);
    StringBuilder cat = new StringBuilder();
    for (String file : files) {
      cat.append(java.nio.file.Files.readString(dir.resolve(file)));
    }
    assertThat(FunctionLibrary.bundled().functionText()).isEqualTo(cat.toString());
    assertThat(FunctionLibrary.bundled().version()).isEqualTo(3);
  }

  private static String withVersion(String text, int from, int to) {
    return text.replace("function library, version " + from, "function library, version " + to)
        .replace("local VERSION = " + from + "\n", "local VERSION = " + to + "\n");
  }

  @Test
  void functions_libraryFlushedWhileRunning_isReloadedAndTheCallSucceeds() {
    try (Windowpane wp = Windowpane.using(engine(ScriptMode.FUNCTIONS));
        RespClient c = redis.client()) {
      RateLimiter limiter = wp.limiter("l", Limit.of(3, WindowSpec.panes(SECOND, 10)));
      assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(2);
      c.command("FUNCTION", "FLUSH");
      assertThat(limiter.tryAcquire("k", 1).remaining()).isEqualTo(1);
      assertThat(version(c)).isEqualTo((long) FunctionLibrary.bundled().version());
      c.command("FUNCTION", "FLUSH");
      assertThat(limiter.tryAcquireAsync("k", 1).toCompletableFuture().join().remaining())
          .isZero();
    }
  }

  @Test
  void evalsha_afterScriptFlush_reloadsByItself() {
    RedisEngine engine = engine(ScriptMode.EVALSHA);
    try (Windowpane wp = Windowpane.using(engine); RespClient c = redis.client()) {
      assertThat(engine.usesFunctions()).isFalse();
      WindowCounter counter = wp.counter("c", WindowSpec.weighted(SECOND));
      assertThat(counter.add("k", 2)).isEqualTo(2);
      assertThat(c.command("SCRIPT", "EXISTS", FunctionLibrary.bundled().evalSha()))
          .isEqualTo(List.of(1L));
      c.command("SCRIPT", "FLUSH");
      assertThat(counter.add("k", 2)).isEqualTo(4);
      assertThat(counter.addAll(List.of("a", "b"), 1)).containsExactly(1L, 1L);
      assertThat(c.command("FUNCTION", "LIST")).as("no library loaded in EVALSHA mode")
          .isEqualTo(List.of());
    }
  }
}
