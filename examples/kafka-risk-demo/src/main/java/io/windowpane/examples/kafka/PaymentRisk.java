package io.windowpane.examples.kafka;

import io.windowpane.EventTime;
import io.windowpane.StatsSpec;
import io.windowpane.Summary;
import io.windowpane.WindowCounter;
import io.windowpane.WindowSpec;
import io.windowpane.WindowStats;
import io.windowpane.Windowpane;
import java.time.Duration;

/**
 * A risk feature computed from a stream: "more than 5 card payments from this device in 10
 * minutes", and the amounts behind it. Payments arrive from the stream late and out of order;
 * each is added at its own time ({@link WindowCounter#add(String, long, long)}), so the window
 * holds what it would have held had they arrived in order. A payment whose pane has already
 * left the window is dropped and counted ({@link EventTime#droppingLate()}): a stream replayed
 * from an old offset must not fail the consumer.
 */
public final class PaymentRisk {

  /** More payments than this in the window is risky. */
  public static final int MAX_PAYMENTS = 5;

  /** 10 minutes in 60 panes of 10 s: a payment leaves the window with its pane. */
  public static final WindowSpec WINDOW = WindowSpec.panes(Duration.ofMinutes(10), 60)
      .withEventTime(EventTime.defaults().withMaxAhead(Duration.ofSeconds(5)).droppingLate());

  private final WindowCounter payments;
  private final WindowStats amounts;

  /** The feature's windows on {@code wp} (any engine: local, Redis, etcd, a chain). */
  public PaymentRisk(Windowpane wp) {
    this.payments = wp.counter("card-payments", WINDOW);
    this.amounts = wp.stats("payment-amounts", StatsSpec.histogram(Duration.ofMinutes(10), 60)
        .withEventTime(WINDOW.eventTime()));
  }

  /** Takes one payment of {@code amount} from {@code device} that happened at {@code atMillis}. */
  public void onPayment(String device, double amount, long atMillis) {
    payments.add(device, 1, atMillis);
    amounts.record(device, amount, atMillis);
  }

  /** Payments from {@code device} in the last 10 minutes. */
  public long payments(String device) {
    return payments.count(device);
  }

  /** Whether {@code device} made more than {@value #MAX_PAYMENTS} payments in 10 minutes. */
  public boolean risky(String device) {
    return payments(device) > MAX_PAYMENTS;
  }

  /** The amounts {@code device} paid in the last 10 minutes. */
  public Summary amounts(String device) {
    return amounts.summary(device);
  }

  /** Payments dropped because their pane had left the window when they arrived. */
  public long latePaymentsDropped() {
    return payments.lateEventsDropped();
  }
}
