package io.windowpane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Windowpane.tryAcquireAllOrNothing on the local engine with a manual clock: a group is
 * recorded whole or not at all, answers the denying request's exact denial, and agrees step by
 * step with a model that peeks every request first and acquires only when all fit.
 */
class AllOrNothingTest {

  private static final long START = 1_000_000_000_003L; // off every pane edge

  private final ManualClock clock = ManualClock.at(START);
  private final Windowpane wp = Windowpane.localBuilder().clock(clock).build();
  private final RateLimiter a = wp.limiter("a", Limit.of(5,
      WindowSpec.panes(Duration.ofSeconds(1), 10)).named("a-second"));
  private final RateLimiter b = wp.limiter("b", Limit.of(3,
      WindowSpec.log(Duration.ofSeconds(1))).named("b-second"));

  private GroupDecision group(PermitRequest... requests) {
    return wp.tryAcquireAllOrNothing(List.of(requests)).orElseThrow();
  }

  /** Room left for {@code permits}-sized requests, read without recording. */
  private static long room(RateLimiter limiter, String key) {
    return limiter.peek(key, 1).orElseThrow().allowed()
        ? limiter.peek(key, 1).orElseThrow().remaining() + 1 : 0;
  }

  @Test
  void allFit_everyRequestRecorded_smallestRemaining() {
    GroupDecision g = group(a.request("u", 2), b.request("t", 1));
    assertThat(g.allowed()).isTrue();
    assertThat(g.decision()).isEqualTo(Decision.allowed(2));
    assertThat(g.deniedIndex()).isEmpty();
    assertThat(g.decisions()).containsExactly(Optional.of(Decision.allowed(3)),
        Optional.of(Decision.allowed(2)));
    assertThat(room(a, "u")).isEqualTo(3);
    assertThat(room(b, "t")).isEqualTo(2);
  }

  @Test
  void secondOver_theFirstKeepsNothing_andTheDenialIsTheSecondsOwn() {
    b.tryAcquire("t", 3);
    clock.advance(400);
    Decision alone = b.peek("t", 1).orElseThrow();
    GroupDecision g = group(a.request("u", 2), b.request("t", 1));
    assertThat(g.allowed()).isFalse();
    assertThat(g.deniedIndex()).hasValue(1);
    assertThat(g.decision()).isEqualTo(alone);
    assertThat(g.decision().deniedBy().orElseThrow().name()).isEqualTo("b-second");
    assertThat(g.decision().retryAfterMillis()).isEqualTo(600);
    // a was taken first (a < b), then given back: its room is whole again, and said so.
    assertThat(g.decisions()).containsExactly(Optional.of(Decision.allowed(5)),
        Optional.of(alone));
    assertThat(room(a, "u")).isEqualTo(5);
    assertThat(room(b, "t")).isZero();
  }

  @Test
  void firstInTheFixedOrderOver_laterRequestsNotAsked_whateverTheCallersOrder() {
    a.tryAcquire("u", 5);
    GroupDecision g = group(b.request("t", 1), a.request("u", 1));
    assertThat(g.allowed()).isFalse();
    assertThat(g.deniedIndex()).hasValue(1);
    assertThat(g.decisions().get(0)).isEmpty(); // b comes after a: not asked
    assertThat(room(b, "t")).isEqualTo(3);
  }

  @Test
  void exactBoundary_deniedOneMillisecondBefore_allowedAtTheInstant_thenBothRecorded() {
    b.tryAcquire("t", 3);
    clock.advance(999);
    GroupDecision before = group(a.request("u", 1), b.request("t", 1));
    assertThat(before.allowed()).isFalse();
    assertThat(before.decision().retryAfterMillis()).isEqualTo(1);
    assertThat(room(a, "u")).isEqualTo(5);
    clock.advance(1);
    GroupDecision at = group(a.request("u", 1), b.request("t", 1));
    assertThat(at.allowed()).isTrue();
    assertThat(room(a, "u")).isEqualTo(4);
    assertThat(room(b, "t")).isEqualTo(2);
  }

  @Test
  void sameLimiterAndKeyTwice_takenTogether_orRefusedWhenTheSumCanNeverFit() {
    GroupDecision g = group(a.request("u", 3), b.request("t", 1), a.request("u", 2));
    assertThat(g.allowed()).isTrue();
    assertThat(g.decisions().get(0)).isEqualTo(g.decisions().get(2))
        .contains(Decision.allowed(0));
    assertThat(room(a, "u")).isZero();
    assertThatThrownBy(() -> group(a.request("v", 3), a.request("v", 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("requests[0] and requests[1]")
        .hasMessageContaining("at most 5");
    assertThat(room(a, "v")).isEqualTo(5);
  }

  @Test
  void badArguments_illegalArgument_namingTheArgument_recordingNothing() {
    Windowpane other = Windowpane.localBuilder().clock(clock).build();
    RateLimiter foreign = other.limiter("a", a.quota());
    List<PermitRequest> nulls = new ArrayList<>();
    nulls.add(a.request("u", 1));
    nulls.add(null);
    List<PermitRequest> many = Collections.nCopies(65, b.request("t", 1));
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothing(null))
        .hasMessage("requests must not be null");
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothing(List.of()))
        .hasMessage("number of requests must be in [1, 64], was 0");
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothing(many))
        .hasMessage("number of requests must be in [1, 64], was 65");
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothing(nulls))
        .hasMessage("requests[1] must not be null");
    assertThatThrownBy(() -> wp.tryAcquireAllOrNothingAsync(
        List.of(a.request("u", 1), foreign.request("u", 1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("requests[1].limiter 'a' must be a limiter of this Windowpane");
    assertThatThrownBy(() -> a.request("u", 6)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("permits must be in [1, 5], was 6");
    assertThatThrownBy(() -> a.request("", 1)).hasMessageContaining("key must be 1 to 256");
    assertThatThrownBy(() -> new PermitRequest(null, "u", 1))
        .hasMessage("limiter must not be null");
    assertThat(room(a, "u")).isEqualTo(5);
    assertThat(room(foreign, "u")).isEqualTo(5);
  }

  @Test
  void anEngineThatCannotLease_answersEmpty_recordingNothing_butAGroupOfOneIsATryAcquire() {
    io.windowpane.spi.Engine local = Windowpane.localBuilder().clock(clock).buildEngine();
    io.windowpane.spi.Engine noLeases = new io.windowpane.spi.Engine() { // lease: the SPI default
      @Override public String name() {
        return "no-leases";
      }

      @Override public io.windowpane.spi.CounterStore counterStore(String n, WindowSpec s) {
        return local.counterStore(n, s);
      }

      @Override public io.windowpane.spi.LimiterStore limiterStore(String n, Quota q) {
        io.windowpane.spi.LimiterStore store = local.limiterStore(n, q);
        return new io.windowpane.spi.LimiterStore() {
          @Override public Decision tryAcquire(String key, long permits) {
            return store.tryAcquire(key, permits);
          }

          @Override public boolean holdsState(String key) {
            return store.holdsState(key);
          }

          @Override public java.util.Optional<Decision> peek(String key, long permits) {
            return store.peek(key, permits);
          }
        };
      }

      @Override public io.windowpane.spi.StatsStore statsStore(String n, StatsSpec s) {
        return local.statsStore(n, s);
      }

      @Override public void close() {
        local.close();
      }
    };
    Windowpane other = Windowpane.using(noLeases);
    RateLimiter x = other.limiter("x", a.quota());
    RateLimiter y = other.limiter("y", b.quota());
    assertThat(other.tryAcquireAllOrNothing(List.of(x.request("k", 1), y.request("k", 1))))
        .isEmpty();
    assertThat(room(x, "k")).isEqualTo(5);
    assertThat(room(y, "k")).isEqualTo(3);
    GroupDecision one = other.tryAcquireAllOrNothing(List.of(y.request("k", 3)))
        .orElseThrow();
    assertThat(one.allowed()).isTrue();
    assertThat(room(y, "k")).isZero();
    other.close();
  }

  /**
   * Random groups over three limiters (panes, log, weighted) and three keys, against a model on
   * a second engine: peek every merged request in the fixed order; the group is allowed when all
   * fit (then each is acquired), else it is denied with the first denial in that order.
   */
  @Test
  void randomGroups_agreeWithThePeekThenAcquireModel() {
    List<Quota> quotas = List.of(a.quota(), b.quota(),
        Quota.of(Limit.of(4, WindowSpec.weighted(Duration.ofMillis(700)))));
    for (long seed = 1; seed <= 4; seed++) {
      Random random = new Random(seed);
      ManualClock modelClock = ManualClock.at(clock.millis()); // the same instants as wp
      Windowpane model = Windowpane.localBuilder().clock(modelClock).build();
      List<RateLimiter> real = new ArrayList<>();
      List<RateLimiter> peers = new ArrayList<>();
      for (int l = 0; l < quotas.size(); l++) {
        real.add(wp.limiter("r" + seed + "-" + l, quotas.get(l)));
        peers.add(model.limiter("r" + seed + "-" + l, quotas.get(l)));
      }
      for (int step = 0; step < 1_500; step++) {
        long dt = random.nextInt(5) == 0 ? random.nextInt(300) : random.nextInt(4);
        clock.advance(dt);
        modelClock.advance(dt);
        int size = 1 + random.nextInt(4);
        List<PermitRequest> requests = new ArrayList<>();
        long[] sums = new long[9];
        for (int i = 0; i < size; i++) {
          int l = random.nextInt(3);
          int k = random.nextInt(3);
          long permits = 1 + random.nextInt(2);
          if (sums[l * 3 + k] + permits > quotas.get(l).smallestPermits()) {
            continue;
          }
          sums[l * 3 + k] += permits;
          requests.add(real.get(l).request("k" + k, permits));
        }
        GroupDecision g = wp.tryAcquireAllOrNothing(requests).orElseThrow();
        Decision expected = null;
        long smallest = Long.MAX_VALUE;
        List<Integer> order = new ArrayList<>();
        for (int s = 0; s < 9; s++) {
          if (sums[s] > 0) {
            order.add(s); // names r<seed>-<l> and keys k<k> sort as l, then k
          }
        }
        order.sort(Comparator.naturalOrder());
        for (int s : order) {
          Decision d = peers.get(s / 3).peek("k" + s % 3, sums[s]).orElseThrow();
          if (!d.allowed()) {
            expected = d;
            break;
          }
        }
        if (expected == null) {
          for (int s : order) {
            smallest = Math.min(smallest,
                peers.get(s / 3).tryAcquire("k" + s % 3, sums[s]).remaining());
          }
          expected = Decision.allowed(smallest);
        }
        assertThat(g.decision()).as("seed %d step %d: %s", seed, step, requests).isEqualTo(expected);
      }
      for (int s = 0; s < 9; s++) { // the same state is left behind
        assertThat(real.get(s / 3).peek("k" + s % 3, 1))
            .isEqualTo(peers.get(s / 3).peek("k" + s % 3, 1));
      }
    }
  }

  /**
   * Threads racing groups {pool: one shared key, user: a key per thread} with the clock still.
   * "pool" comes first in the fixed order, so every group denied by its user's limit of 30 takes
   * a pool permit and gives it back: exactly 30 groups per thread are allowed, and the pool ends
   * with exactly the allowed ones, nothing a denied group held.
   */
  @Test
  void concurrentGroups_exactTotals_givenBackExactly() throws Exception {
    RateLimiter pool = wp.limiter("pool", Limit.of(200,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    RateLimiter user = wp.limiter("user", Limit.of(30,
        WindowSpec.panes(Duration.ofSeconds(10), 10)));
    int threads = 4;
    int groupsEach = 100;
    ExecutorService workers = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Integer>> allowed = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        String key = "t" + t;
        allowed.add(workers.submit(() -> {
          go.await();
          int ok = 0;
          for (int i = 0; i < groupsEach; i++) {
            if (wp.tryAcquireAllOrNothing(List.of(user.request(key, 1),
                pool.request("shared", 1))).orElseThrow().allowed()) {
              ok++;
            }
          }
          return ok;
        }));
      }
      go.countDown();
      for (int t = 0; t < threads; t++) {
        assertThat(allowed.get(t).get(60, TimeUnit.SECONDS)).as("thread %d", t).isEqualTo(30);
        assertThat(room(user, "t" + t)).isZero();
      }
      assertThat(room(pool, "shared")).isEqualTo(200 - 4 * 30);
    } finally {
      workers.shutdownNow();
    }
  }
}
