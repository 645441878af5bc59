package io.windowpane.internal.leasing;

import io.windowpane.LeaseStats;
import java.util.concurrent.atomic.LongAdder;

/** A leasing limiter's counters; striped, so counting a local decision costs no shared write. */
final class LeaseCounters {

  final LongAdder leases = new LongAdder();
  final LongAdder leasedPermits = new LongAdder();
  final LongAdder returns = new LongAdder();
  final LongAdder returnedPermits = new LongAdder();
  final LongAdder failedReturns = new LongAdder();
  final LongAdder local = new LongAdder();
  final LongAdder engine = new LongAdder();

  LeaseStats snapshot(boolean active) {
    return new LeaseStats(leases.sum(), leasedPermits.sum(), returns.sum(),
        returnedPermits.sum(), failedReturns.sum(), local.sum(), engine.sum(), active);
  }
}
