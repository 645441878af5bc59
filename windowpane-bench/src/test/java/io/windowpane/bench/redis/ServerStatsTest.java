package io.windowpane.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerStatsTest {

  /** As Redis 7.0 prints it: subcommands are named "config|resetstat". */
  private static final String COMMANDSTATS = "# Commandstats\r\n"
      + "cmdstat_evalsha:calls=200,usec=1200,usec_per_call=6.00,rejected_calls=0,failed_calls=0\r\n"
      + "cmdstat_config|resetstat:calls=1,usec=30,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n"
      + "cmdstat_info:calls=2,usec=40,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r\n"
      + "cmdstat_zadd:calls=400,usec=400,usec_per_call=1.00,rejected_calls=0,failed_calls=3\r\n";

  @Test
  void commands_leaveOutTheSideConnectionsOwn_andPutTheMostCalledFirst() {
    Map<String, ServerStats.CommandStat> stats = ServerStats.commands(ServerStats.parseInfo(COMMANDSTATS));

    assertThat(stats.keySet()).containsExactly("zadd", "evalsha");
    assertThat(stats.get("zadd")).isEqualTo(new ServerStats.CommandStat(400, 1.00, 3));
    assertThat(stats.get("evalsha")).isEqualTo(new ServerStats.CommandStat(200, 6.00, 0));
  }

  @Test
  void parseInfo_skipsHeadersAndBlankLines() {
    Map<String, String> cpu = ServerStats.parseInfo("# CPU\r\nused_cpu_sys:1.5\r\nused_cpu_user:2.25\r\n\r\n");

    assertThat(cpu).containsExactly(Map.entry("used_cpu_sys", "1.5"), Map.entry("used_cpu_user", "2.25"));
  }
}
