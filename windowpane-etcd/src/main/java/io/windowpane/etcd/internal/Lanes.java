package io.windowpane.etcd.internal;

import io.windowpane.WindowpaneException;
import io.windowpane.WindowpaneTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The lanes of one store: one {@link KeyLane} per key with operations in flight (and up to
 * {@link #MAX_IDLE_LANES} idle ones, which keep their key's last value cached), the store's key
 * prefix, and its state factory. Thread-safe.
 *
 * <p>Keys: {@code <namespace>/<kind>/<name>/<shape>/<key>}, where kind is {@code c} (counter),
 * {@code l} (limiter) or {@code s} (statistics) and shape a short hash of the spec, so stores of
 * one name with different specs never read each other's state.
 */
final class Lanes {

  /** Idle lanes kept for their cached values before idle ones are dropped. */
  static final int MAX_IDLE_LANES = 10_000;

  final Context ctx;
  final String name;
  final String prefix;
  final long leaseClass;
  private final long expiryMillis;
  private final Supplier<Body> bodies;
  private final ConcurrentHashMap<String, KeyLane> lanes = new ConcurrentHashMap<>();
  /** The watch-fed read cache of a counter store with cached counts; null otherwise. */
  volatile CountCache cache;

  Lanes(Context ctx, char kind, String name, String shape, long expiryMillis,
      Supplier<Body> bodies) {
    this.ctx = ctx;
    this.name = name;
    this.prefix = ctx.namespace + "/" + kind + "/" + name + "/" + shape + "/";
    this.expiryMillis = expiryMillis;
    this.leaseClass = ctx.leases.classOf(expiryMillis);
    this.bodies = bodies;
  }

  Doc newDoc() {
    return new Doc(bodies.get(), expiryMillis);
  }

  /** The etcd key holding {@code key}'s state. */
  byte[] etcdKey(String key) {
    return (prefix + key).getBytes(StandardCharsets.UTF_8);
  }

  /** Queues {@code p} on {@code key}'s lane; its future completes when it is decided. */
  <R> CompletableFuture<R> submit(String key, Pending<R> p) {
    lanes.computeIfAbsent(key, k -> new KeyLane(this, k, etcdKey(k))).submit(p);
    return p.future;
  }

  /** The key's value as of a lane's commit or fresh read. */
  void observed(String key, Snapshot snap) {
    CountCache c = cache;
    if (c != null) {
      c.offer(key, snap);
    }
  }

  void idle(KeyLane lane) {
    if (lanes.size() > MAX_IDLE_LANES) {
      lanes.remove(lane.key, lane); // a caller holding it still gets served: CAS guards state
    }
  }

  long now() {
    return ctx.clock.millis();
  }

  long deadline() {
    return ctx.deadline();
  }

  /** Waits for {@code f} (its own deadline completes it; the guard only bounds the wait). */
  <T> T await(CompletableFuture<T> f, String what) {
    try {
      return f.get(ctx.timeoutMillis * 2 + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WindowpaneException("etcd: " + what + " interrupted", e);
    } catch (TimeoutException e) {
      throw new WindowpaneTimeoutException("etcd: " + what + ": no answer within "
          + (ctx.timeoutMillis * 2 + 1_000) + " ms", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException("etcd: " + what + ": " + cause, cause);
    }
  }

  /** {@code f} with the wrappers of combined futures taken off its failure. */
  static <T> CompletableFuture<T> unwrapped(CompletableFuture<T> f) {
    return f.handle((v, e) -> {
      if (e == null) {
        return v;
      }
      Throwable cause = e;
      while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new WindowpaneException("etcd: " + cause, cause);
    });
  }

  /** One future per key, all queued before any is awaited; answers in order. */
  static <R> CompletableFuture<List<R>> each(List<String> keys,
      Function<String, CompletableFuture<R>> call) {
    List<CompletableFuture<R>> futures = new ArrayList<>(keys.size());
    for (String key : keys) {
      futures.add(call.apply(key));
    }
    return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      List<R> out = new ArrayList<>(futures.size());
      for (CompletableFuture<R> f : futures) {
        out.add(f.join());
      }
      return out;
    });
  }
}
