package io.windowpane.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.windowpane.KeyCreationRefusedException;
import io.windowpane.WindowpaneException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A batch sent one call per item (a buffered counter's {@code addAll}, a leasing limiter's
 * {@code tryAcquireAll}): every item is sent, and keys refused for memory pressure leave a
 * refusal that carries the other items' answers.
 */
class StagesTest {

  private static final List<String> KEYS = List.of("a", "new", "b", "new2");

  @Test
  void itemsNow_refusedKeys_everyItemSent_refusalCarriesTheOthersAnswers() {
    List<String> sent = new ArrayList<>();
    KeyCreationRefusedException e = catchThrowableOfType(
        () -> Stages.itemsNow("addAll", KEYS, key -> {
          sent.add(key);
          if (key.startsWith("new")) {
            throw new KeyCreationRefusedException("no new key " + key);
          }
          return (long) key.charAt(0);
        }), KeyCreationRefusedException.class);
    assertThat(sent).containsExactlyElementsOf(KEYS);
    assertThat(e.answers().orElseThrow()).containsExactly(97L, null, 98L, null);
    assertThat(e.refusedItems()).containsExactly(1, 3);
    assertThat(e).hasMessageContaining("2 of 4 items").hasMessageContaining("'new'");
  }

  @Test
  void itemsNow_otherFailure_isThrownAsItIs_andNoRefusalAnswers() {
    assertThat(Stages.itemsNow("addAll", List.of("a"), key -> 1L)).containsExactly(1L);
    assertThatThrownBy(() -> Stages.itemsNow("addAll", KEYS, key -> {
      if (key.equals("b")) {
        throw new WindowpaneException("down");
      }
      if (key.startsWith("new")) {
        throw new KeyCreationRefusedException("no new key");
      }
      return 1L;
    })).isExactlyInstanceOf(WindowpaneException.class).hasMessage("down");
  }
}
