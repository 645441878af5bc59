package io.windowpane.testkit.fault;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** The proxy's open links and live threads, and the one flag that says it is closed. */
final class Registry {

  /*
   * Invariant: a link or a thread is added only under this object's lock while not closed, and
   * close() sets the flag under the same lock, so whatever close() then aborts or joins is
   * everything that was ever added; nothing can slip in afterwards. Removal needs no lock (the
   * sets are concurrent), so a link ending never contends with one being added.
   */

  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private boolean closed; // guarded by this

  /** Starts a daemon thread named {@code name}; {@code null} (and not started) once closed. */
  Thread spawn(String name, Runnable task) {
    Thread thread = new Thread(() -> {
      try {
        task.run();
      } finally {
        threads.remove(Thread.currentThread());
      }
    }, name);
    thread.setDaemon(true);
    synchronized (this) {
      if (closed) {
        return null;
      }
      threads.add(thread);
      thread.start();
    }
    return thread;
  }

  /** Adds an open link; {@code false} once closed. */
  synchronized boolean add(Link link) {
    if (closed) {
      return false;
    }
    links.add(link);
    return true;
  }

  void remove(Link link) {
    links.remove(link);
  }

  int openLinks() {
    return links.size();
  }

  void abortLinks() {
    for (Link link : List.copyOf(links)) {
      link.abort();
    }
  }

  /** Refuses further links and threads; {@code false} if it was already closed. */
  synchronized boolean close() {
    boolean wasOpen = !closed;
    closed = true;
    return wasOpen;
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** Waits up to {@code timeoutNanos} in all for every thread to end. */
  void joinThreads(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    try {
      for (Thread thread : List.copyOf(threads)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedJoin(thread, left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
