package io.windowpane;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The answer of {@link Windowpane#tryAcquireAllOrNothing}: a value, never an exception.
 * Immutable.
 *
 * <ul>
 *   <li>{@link #allowed()}: every request's permits were recorded; when false, none of them is
 *       (permits taken before the denial were given back).
 *   <li>{@link #decision()}: when allowed, an allowed decision with the smallest remaining over
 *       the requests; when denied, the denying request's own denial: its limit, remaining and
 *       exact {@code retryAfter} (when that request would fit; another request of the group may
 *       still deny then).
 *   <li>{@link #deniedIndex()}: the index, in the caller's list, of the request that denied.
 *   <li>{@link #decisions()}: one entry per request, in the caller's order (see there).
 * </ul>
 */
public final class GroupDecision {

  private final Decision decision;
  private final int deniedIndex; // -1: allowed
  private final List<Optional<Decision>> decisions;

  private GroupDecision(Decision decision, int deniedIndex,
      List<Optional<Decision>> decisions) {
    this.decision = decision;
    this.deniedIndex = deniedIndex;
    this.decisions = Collections.unmodifiableList(decisions);
  }

  /**
   * A group's answer, for engines that decide groups themselves
   * ({@link io.windowpane.spi.Engine#tryAcquireAllOrNothingAsync}): {@code deniedIndex} is -1
   * when {@code decision} is allowed, else the index of the denying request; {@code decisions}
   * has one entry per request, as {@link #decisions()} states.
   */
  public static GroupDecision of(Decision decision, int deniedIndex,
      List<Optional<Decision>> decisions) {
    java.util.Objects.requireNonNull(decision, "decision");
    java.util.Objects.requireNonNull(decisions, "decisions");
    if (decision.allowed() != (deniedIndex < 0) || deniedIndex >= decisions.size()) {
      throw new IllegalArgumentException("deniedIndex must be -1 for an allowed group and in [0, "
          + decisions.size() + ") for a denied one, was " + deniedIndex + " with " + decision);
    }
    return new GroupDecision(decision, deniedIndex, List.copyOf(decisions));
  }

  /** Whether every request's permits were recorded (else none was). */
  public boolean allowed() {
    return decision.allowed();
  }

  /** The group's answer: allowed with the smallest remaining, or the denying request's denial. */
  public Decision decision() {
    return decision;
  }

  /** Index of the denying request in the caller's list; empty when allowed. */
  public OptionalInt deniedIndex() {
    return deniedIndex < 0 ? OptionalInt.empty() : OptionalInt.of(deniedIndex);
  }

  /**
   * Each request's own answer, in the caller's order (requests for the same limiter and key
   * share one, for their summed permits):
   *
   * <ul>
   *   <li>allowed group: each request's allowed decision, with the remaining its permits left;
   *   <li>denied group: the denying request's denial; a request that had room before it (its
   *       permits were taken, then given back) an allowed decision with the room it had, that is
   *       its remaining without its permits; a request not asked (after the denying one in the
   *       group's fixed order) empty.
   * </ul>
   */
  public List<Optional<Decision>> decisions() {
    return decisions;
  }

  @Override
  public String toString() {
    return deniedIndex < 0 ? "group " + decision
        : "group " + decision + " by request " + deniedIndex;
  }
}
