package io.windowpane.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** jetcd plumbing shared by the contenders that use jetcd directly. */
final class Jetcd {

  private Jetcd() {}

  /** A client of its own for one contender (its own gRPC channel and event loop). */
  static Client client(String endpoint) {
    return Client.builder().endpoints(endpoint).connectTimeout(Duration.ofSeconds(2)).build();
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** Waits for {@code f} at most {@code millis}; failures are thrown as they are. */
  static <T> T await(CompletableFuture<T> f, long millis) throws Exception {
    try {
      return f.get(millis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof Exception ex ? ex : e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw e;
    }
  }
}
