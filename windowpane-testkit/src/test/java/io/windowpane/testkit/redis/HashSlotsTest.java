package io.windowpane.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The slot function against published values; RedisClusterIT checks it against a server. */
class HashSlotsTest {

  @Test
  void crc16_ofTheStandardCheckString_isTheXmodemCheckValue() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertThat(HashSlots.crc16(check, 0, check.length)).isEqualTo(0x31C3);
    assertThat(HashSlots.crc16(new byte[0], 0, 0)).isZero();
  }

  @Test
  void slotOf_matchesTheValuesInTheRedisDocumentation() {
    // CLUSTER KEYSLOT examples from https://redis.io/commands/cluster-keyslot/
    assertThat(RedisCluster.slotOf("somekey")).isEqualTo(11058);
    assertThat(RedisCluster.slotOf("foo{hash_tag}")).isEqualTo(2515);
    assertThat(RedisCluster.slotOf("bar{hash_tag}")).isEqualTo(2515);
  }

  @Test
  void slotOf_withAHashTag_hashesOnlyTheFirstNonEmptyTag() {
    assertThat(RedisCluster.slotOf("{user1000}.following"))
        .isEqualTo(RedisCluster.slotOf("{user1000}.followers"))
        .isEqualTo(RedisCluster.slotOf("user1000"));
    assertThat(RedisCluster.slotOf("a{b}c{d}")).isEqualTo(RedisCluster.slotOf("b"));
    assertThat(RedisCluster.slotOf("{{a}}")).isEqualTo(RedisCluster.slotOf("{a"));
  }

  @Test
  void slotOf_withAnEmptyOrUnclosedTag_hashesTheWholeKey() {
    assertThat(RedisCluster.slotOf("{}")).isEqualTo(crcSlot("{}"));
    assertThat(RedisCluster.slotOf("{}{a}")).isEqualTo(crcSlot("{}{a}"));
    assertThat(RedisCluster.slotOf("{")).isEqualTo(crcSlot("{"));
    assertThat(RedisCluster.slotOf("}a{")).isEqualTo(crcSlot("}a{"));
    assertThat(RedisCluster.slotOf("")).isZero();
  }

  @Test
  void slotOf_hashesUtf8Bytes() {
    assertThat(RedisCluster.slotOf("é{ü}")).isEqualTo(crcSlot("ü"));
    assertThat(RedisCluster.slotOf("é")).isEqualTo(crcSlot("é")).isNotEqualTo(crcSlot("e"));
  }

  private static int crcSlot(String whole) {
    byte[] bytes = whole.getBytes(StandardCharsets.UTF_8);
    return HashSlots.crc16(bytes, 0, bytes.length) % 16384;
  }
}
