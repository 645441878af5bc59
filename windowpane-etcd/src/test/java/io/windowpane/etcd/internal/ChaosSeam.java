package io.windowpane.etcd.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * An in-memory {@link EtcdSeam} that loses answers the ways a cluster losing its leader does,
 * chosen by a seeded random: a write lands and its answer is lost; a write is lost before it
 * lands; a write stays in flight and lands (if its compare still holds) at a later call, after
 * its caller was told it failed; a read fails. Multi-key reads and writes fail the same ways,
 * a multi-key write landing all or nothing. It keeps the key's history, so
 * {@link #firstChangeAfter} answers like etcd's watch from a revision. Faults stop when
 * {@link #calm} is set. Synchronized; answers complete at once.
 */
final class ChaosSeam implements EtcdSeam {

  private record Change(String key, Snapshot snap) {}

  /** A write still in flight: one key, or several put all or nothing. */
  private record InFlight(List<String> keys, long[] expected, List<byte[]> values) {}

  private final Map<String, Snapshot> keys = new HashMap<>();
  private final List<Change> history = new ArrayList<>();
  private final List<InFlight> inFlight = new ArrayList<>();
  private final Random random;
  private final double faultRate;
  private long revision = 1;
  volatile boolean calm;
  int landedLost;
  int lostBeforeLanding;
  int landedLate;
  int readsFailed;

  ChaosSeam(long seed, double faultRate) {
    this.random = new Random(seed);
    this.faultRate = faultRate;
  }

  private static String k(byte[] key) {
    return new String(key, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static <T> CompletableFuture<T> lost(String what) {
    return CompletableFuture.failedFuture(new SeamException(SeamException.Kind.TRANSIENT,
        what, null));
  }

  private boolean fault() {
    return !calm && random.nextDouble() < faultRate;
  }

  /** Lands the writes still in flight whose turn came (all of them once calm). */
  private void landSome() {
    for (int i = 0; i < inFlight.size(); ) {
      if (calm || random.nextBoolean()) {
        InFlight w = inFlight.remove(i);
        if (applyAll(w.keys, w.expected, w.values) != null) {
          landedLate++;
        }
      } else {
        i++;
      }
    }
  }

  /** Puts {@code value} if the key's mod revision is {@code expected}; null if it is not. */
  private Snapshot apply(String key, long expected, byte[] value) {
    Snapshot s = keys.get(key);
    long mod = s == null ? 0 : s.modRevision;
    if (mod != expected) {
      return null;
    }
    revision++;
    Snapshot out = new Snapshot(Arrays.copyOf(value, value.length), revision, true, revision);
    keys.put(key, out);
    history.add(new Change(key, out));
    return out;
  }

  private Snapshot current(String key, boolean succeeded) {
    Snapshot s = keys.get(key);
    return s == null ? new Snapshot(null, 0, succeeded, revision)
        : new Snapshot(s.value, s.modRevision, succeeded, revision);
  }

  @Override
  public synchronized CompletableFuture<Snapshot> get(byte[] key) {
    landSome();
    if (fault()) {
      readsFailed++;
      return lost("read: no leader");
    }
    return CompletableFuture.completedFuture(current(k(key), true));
  }

  @Override
  public synchronized CompletableFuture<Snapshot> compareAndPut(byte[] key, long expected,
      byte[] value, long leaseId) {
    landSome();
    String name = k(key);
    if (value == null) {
      Snapshot s = current(name, true);
      return CompletableFuture.completedFuture(s.modRevision == expected
          ? new Snapshot(null, expected, true, revision) : current(name, false));
    }
    if (fault()) {
      switch (random.nextInt(3)) {
        case 0:
          lostBeforeLanding++;
          return lost("write lost before it landed");
        case 1:
          if (apply(name, expected, value) != null) {
            landedLost++;
          }
          return lost("write landed, answer lost");
        default:
          inFlight.add(new InFlight(List.of(name), new long[] {expected},
              List.of(Arrays.copyOf(value, value.length))));
          return lost("write still in flight");
      }
    }
    Snapshot out = apply(name, expected, value);
    return CompletableFuture.completedFuture(out != null ? out : current(name, false));
  }

  @Override
  public synchronized CompletableFuture<List<Snapshot>> getAll(List<byte[]> keys) {
    landSome();
    if (fault()) {
      readsFailed++;
      return lost("multi-key read: no leader");
    }
    List<Snapshot> out = new ArrayList<>();
    for (byte[] key : keys) {
      out.add(current(k(key), true));
    }
    return CompletableFuture.completedFuture(out);
  }

  @Override
  public synchronized CompletableFuture<List<Snapshot>> compareAndPutAll(List<byte[]> keys,
      long[] expected, List<byte[]> values, long leaseId) {
    landSome();
    List<String> names = new ArrayList<>();
    List<byte[]> copies = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      names.add(k(keys.get(i)));
      copies.add(Arrays.copyOf(values.get(i), values.get(i).length));
    }
    if (fault()) {
      switch (random.nextInt(3)) {
        case 0:
          lostBeforeLanding++;
          return lost("multi-key write lost before it landed");
        case 1:
          if (applyAll(names, expected, copies) != null) {
            landedLost++;
          }
          return lost("multi-key write landed, answer lost");
        default:
          inFlight.add(new InFlight(names, expected.clone(), copies));
          return lost("multi-key write still in flight");
      }
    }
    List<Snapshot> out = applyAll(names, expected, copies);
    if (out == null) {
      out = new ArrayList<>();
      for (String name : names) {
        out.add(new Snapshot(null, current(name, false).modRevision, false, revision));
      }
    }
    return CompletableFuture.completedFuture(out);
  }

  /** Puts every value if every key's mod revision is as expected, at one revision; else null. */
  private List<Snapshot> applyAll(List<String> names, long[] expected, List<byte[]> values) {
    for (int i = 0; i < names.size(); i++) {
      if (current(names.get(i), true).modRevision != expected[i]) {
        return null;
      }
    }
    revision++;
    List<Snapshot> out = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      Snapshot put = new Snapshot(values.get(i), revision, true, revision);
      keys.put(names.get(i), put);
      history.add(new Change(names.get(i), put));
      out.add(put);
    }
    return out;
  }

  @Override
  public synchronized CompletableFuture<Snapshot> compareAndDelete(byte[] key, long expected) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("no deletes"));
  }

  @Override
  public synchronized CompletableFuture<Snapshot> firstChangeAfter(byte[] key, long after) {
    String name = k(key);
    for (Change c : history) {
      if (c.key.equals(name) && c.snap.modRevision > after) {
        return CompletableFuture.completedFuture(c.snap);
      }
    }
    return lost("no change after " + after + " yet");
  }

  @Override
  public synchronized CompletableFuture<Long> revision() {
    return CompletableFuture.completedFuture(revision);
  }

  @Override
  public void requestProgress() {}

  @Override
  public CompletableFuture<Long> grantLease(long ttlSeconds) {
    return CompletableFuture.completedFuture(7L);
  }

  @Override
  public AutoCloseable watch(byte[] prefix, long fromRevision, WatchListener listener) {
    return () -> {};
  }

  /** Lands or drops every write still in flight (as a cluster settles). */
  synchronized void settle() {
    calm = true;
    landSome();
  }

  @Override
  public void close() {}
}
