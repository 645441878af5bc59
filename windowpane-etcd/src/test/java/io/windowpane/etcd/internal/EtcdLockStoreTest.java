package io.windowpane.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.windowpane.ManualClock;
import io.windowpane.WindowpaneException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The etcd lock store over an in-memory seam: the stored layout, and writes whose answers are
 * lost after they landed (recognised, never misreported).
 */
class EtcdLockStoreTest {

  private final LosingSeam seam = new LosingSeam();
  /** Expiries of the tests below lie past Long.MAX_VALUE. */
  private final ManualClock clock = ManualClock.at(Long.MAX_VALUE - 2_500);
  private final Context ctx = new Context(seam, clock, "t", 5_000, 60_000, 64, 2, 200,
      1_500_000, 0);
  private final EtcdLockStore store = new EtcdLockStore(ctx);

  @AfterEach
  void close() {
    ctx.close();
  }

  private OptionalLong acquire(String token, long ttl) {
    return store.tryAcquire("job", token, ttl).toCompletableFuture().join();
  }

  @Test
  void value_roundTrips_andTheHolderHoldsUntilTheTtl_acrossLongOverflow() {
    long takenAt = Long.MAX_VALUE - 10;
    LockValue v = LockValue.decode(new LockValue(takenAt, 100, "tök").encode(), "job");
    assertThat(v.token).isEqualTo("tök");
    assertThat(v.takenAt).isEqualTo(takenAt);
    assertThat(v.heldAt(takenAt + 99)).as("wraps past Long.MAX_VALUE").isTrue();
    assertThat(v.heldAt(takenAt + 100)).isFalse();
    assertThat(v.heldAt(takenAt - 5)).as("a lagging reader sees it held").isTrue();
    assertThat(LockValue.decode(null, "job")).isNull();
  }

  @Test
  void value_otherFormatOrForeignBytes_failNamingTheLock() {
    byte[] v = new LockValue(1, 100, "t").encode();
    v[1] = 2;
    assertThatThrownBy(() -> LockValue.decode(v, "job")).isInstanceOf(WindowpaneException.class)
        .hasMessageContaining("'job' is in format 2; this engine reads format 1");
    assertThatThrownBy(() -> LockValue.decode("hello".getBytes(StandardCharsets.UTF_8), "job"))
        .isInstanceOf(WindowpaneException.class).hasMessageContaining("did not write");
  }

  @Test
  void tryAcquire_answerLostAfterThePutLanded_recognisesItsToken_returnsTheRevision() {
    seam.loseAnswers = 1;
    OptionalLong fence = acquire("mine", 1_000);
    assertThat(fence).isPresent();
    assertThat(seam.writes).as("recognised from the read: not written twice").isEqualTo(1);
    assertThat(fence.getAsLong()).isEqualTo(
        seam.memory.get("t/lock/job".getBytes(StandardCharsets.UTF_8)).join().modRevision);
    assertThat(acquire("other", 1_000)).isEmpty();
  }

  @Test
  void renew_answerLost_isRetried_andTheLockStaysHeld() {
    long first = acquire("mine", 1_000).getAsLong();
    clock.advance(900);
    seam.loseAnswers = 1;
    assertThat(store.renew("job", "mine", 1_000).toCompletableFuture().join()).isTrue();
    clock.advance(999);
    assertThat(acquire("other", 1_000)).as("renewed at +900: held until +1,900").isEmpty();
    clock.advance(1);
    assertThat(acquire("other", 1_000).getAsLong()).isGreaterThan(first);
  }

  @Test
  void release_answerLostAfterTheDeleteLanded_answersTrue() {
    acquire("mine", 1_000);
    seam.loseAnswers = 1;
    assertThat(store.release("job", "mine").toCompletableFuture().join()).isTrue();
    assertThat(store.release("job", "mine").toCompletableFuture().join()).isFalse();
    assertThat(acquire("other", 1_000)).isPresent();
  }

  @Test
  void expiredHolder_isTakenOver_byAPutOnTheSameKey_withAGreaterToken() {
    long first = acquire("a", 100).getAsLong();
    clock.advance(99);
    assertThat(acquire("b", 100)).isEmpty();
    assertThat(store.renew("job", "b", 100).toCompletableFuture().join()).isFalse();
    clock.advance(1);
    assertThat(store.renew("job", "a", 100).toCompletableFuture().join())
        .as("expired: no longer a's to renew").isFalse();
    long second = acquire("b", 100).getAsLong();
    assertThat(second).isGreaterThan(first);
    assertThat(store.release("job", "a").toCompletableFuture().join()).isFalse();
    assertThat(store.release("job", "b").toCompletableFuture().join()).isTrue();
  }

  @Test
  void foreignValueUnderTheLockKey_failsTheCall_withoutRetrying() {
    seam.memory.putSilently("t/lock/job", "hello".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> acquire("mine", 1_000)).isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(WindowpaneException.class);
  }
}
