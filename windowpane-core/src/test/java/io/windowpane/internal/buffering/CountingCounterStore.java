package io.windowpane.internal.buffering;

import io.windowpane.WindowpaneException;
import io.windowpane.spi.CounterStore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real engine store with its calls counted, and a switch that makes it refuse every call (a
 * backend that is down), for the buffering tests. The async defaults go through the counted
 * blocking forms.
 */
final class CountingCounterStore implements CounterStore {

  final CounterStore real;
  final AtomicLong calls = new AtomicLong();
  final AtomicBoolean down = new AtomicBoolean();

  CountingCounterStore(CounterStore real) {
    this.real = real;
  }

  private void call() {
    calls.incrementAndGet();
    if (down.get()) {
      throw new WindowpaneException("backend down (test)");
    }
  }

  @Override
  public long add(String key, long n) {
    call();
    return real.add(key, n);
  }

  @Override
  public long count(String key) {
    call();
    return real.count(key);
  }

  @Override
  public boolean holdsState(String key) {
    return real.holdsState(key);
  }
}
