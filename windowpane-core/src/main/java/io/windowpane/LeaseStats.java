package io.windowpane;

/**
 * A snapshot of a leasing rate limiter's counters since it was made ({@link RateLimiter#leaseStats()}),
 * for metrics: the server and the Spring Boot starter publish them as Micrometer meters.
 *
 * @param leases lease calls answered with a grant of at least one permit
 * @param leasedPermits permits granted by those calls
 * @param returns release calls sent for unspent permits
 * @param returnedPermits permits those calls gave back
 * @param failedReturns release calls that failed (their permits stay counted on the engine until
 *     the window lets them go: lost to the window, never spent)
 * @param localDecisions decisions answered on this node from a slice
 * @param engineDecisions decisions that waited for a call to the engine
 * @param active false once the engine answered that it cannot lease (every decision then goes
 *     to the engine)
 */
public record LeaseStats(long leases, long leasedPermits, long returns, long returnedPermits,
    long failedReturns, long localDecisions, long engineDecisions, boolean active) {

  /** {@code localDecisions / (localDecisions + engineDecisions)}; 0 before any decision. */
  public double localHitRatio() {
    long all = localDecisions + engineDecisions;
    return all == 0 ? 0 : (double) localDecisions / all;
  }
}
