package io.windowpane;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A write refused because it would create a new key in a store that is short of memory: the
 * engine's memory guard saw the store above its pressure level, and the store's own atomic
 * call refused the creation before reading or writing anything. Keys that already exist keep
 * working meanwhile; nothing was recorded for this call.
 *
 * <p>A batch ({@code addAll}, {@code tryAcquireAll}) is refused item by item: its items on
 * existing keys are applied, exactly once, and its items on new keys are not. The exception
 * then carries every item's answer ({@link #answers()}: a {@code Long} count or a
 * {@link Decision}, {@code null} for a refused item), so a caller can tell what was recorded and
 * send again only the {@link #refusedItems()}.
 *
 * <p>In a {@link Failover} chain this is not a failure of the member: the call (a batch: only
 * its refused items) goes to the next member (the refusing member acts as
 * {@link Failover.Health#READ_ONLY} for new keys only, and its breaker does not count it), and
 * where no member is left the chain's {@link OnFailure} policy answers a rate-limit decision.
 * Outside a chain it reaches the caller.
 */
public class KeyCreationRefusedException extends WindowpaneException {

  private static final long serialVersionUID = 1L;

  /** A batch's answers, null for the refused items; null for a single call. */
  private final transient List<Object> answers;

  public KeyCreationRefusedException(String message) {
    super(message);
    this.answers = null;
  }

  /**
   * The refusal of some items of a batch: {@code answers} holds each item's answer in the
   * batch's order, {@code null} for each item refused (nothing recorded for it); the others
   * were applied.
   */
  public KeyCreationRefusedException(String message, List<?> answers, Throwable cause) {
    super(message, cause);
    this.answers = Collections.unmodifiableList(new ArrayList<>(answers));
  }

  /**
   * The refusal of the items of a batch of {@code operation} on {@code keys} whose answer in
   * {@code answers} is {@code null} (the others were recorded), named by the first of them;
   * {@code reason} says why they were refused, {@code cause} (or null) what refused them.
   */
  public static KeyCreationRefusedException ofBatch(String operation, List<String> keys,
      List<?> answers, String reason, Throwable cause) {
    int refused = 0;
    int first = -1;
    for (int i = 0; i < answers.size(); i++) {
      if (answers.get(i) == null) {
        refused++;
        first = first < 0 ? i : first;
      }
    }
    return new KeyCreationRefusedException(operation + ": " + refused + " of " + answers.size()
        + " items refused, the others recorded; the first, item " + first + ", key '"
        + (first < 0 ? "" : keys.get(first)) + "': " + reason, answers, cause);
  }

  /**
   * For a batch: every item's answer, in the batch's order (a {@code Long} count for
   * {@code addAll}, a {@link Decision} for {@code tryAcquireAll}), {@code null} for each item
   * refused; the items with an answer were recorded. Empty for a single call, which recorded
   * nothing.
   */
  public Optional<List<Object>> answers() {
    return Optional.ofNullable(answers);
  }

  /**
   * The positions in the batch of the items refused, ascending; empty for a single call.
   */
  public List<Integer> refusedItems() {
    if (answers == null) {
      return List.of();
    }
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < answers.size(); i++) {
      if (answers.get(i) == null) {
        out.add(i);
      }
    }
    return out;
  }
}
