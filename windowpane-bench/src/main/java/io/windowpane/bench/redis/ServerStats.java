package io.windowpane.bench.redis;

import io.windowpane.testkit.redis.RespClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The server's own view of a measurement, read over a side connection of its own (the testkit's
 * {@link RespClient}, so no contender's client is involved): {@code CONFIG RESETSTAT} before,
 * {@code INFO commandstats} and {@code INFO cpu} after, and the clean-up of a contender's keys. The side connection's own commands
 * ({@code CONFIG}, {@code INFO}) are left out of the figures.
 *
 * <p>Plain {@code redis://} only; for {@code rediss://} {@link #connect} returns empty and the
 * run reports no server figures. Not thread-safe.
 */
final class ServerStats implements AutoCloseable {

  /** Calls and mean server time of one command, from {@code INFO commandstats}. */
  record CommandStat(long calls, double usecPerCall, long failedCalls) {}

  /** A {@code used_cpu_user}/{@code used_cpu_sys} reading, in seconds. */
  record Cpu(double user, double sys) {
    Cpu minus(Cpu earlier) {
      return new Cpu(user - earlier.user, sys - earlier.sys);
    }
  }

  private final RespClient client;

  private ServerStats(RespClient client) {
    this.client = client;
  }

  /** A side connection to the server of {@code redisUri}, authenticated if the URI has a password. */
  static Optional<ServerStats> connect(String redisUri) {
    URI uri = URI.create(redisUri);
    if (!"redis".equals(uri.getScheme())) {
      return Optional.empty();
    }
    RespClient client = RespClient.connect(uri.getHost(), uri.getPort() < 0 ? 6379 : uri.getPort(),
        Duration.ofSeconds(5));
    String userInfo = uri.getUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      if (colon < 0) {
        client.command("AUTH", userInfo);
      } else if (colon == 0) {
        client.command("AUTH", userInfo.substring(1));
      } else {
        client.command("AUTH", userInfo.substring(0, colon), userInfo.substring(colon + 1));
      }
    }
    return Optional.of(new ServerStats(client));
  }

  /** {@code CONFIG RESETSTAT}: zeroes command statistics (not the CPU counters). */
  void reset() {
    client.command("CONFIG", "RESETSTAT");
  }

  /**
   * Every command called since the last {@link #reset}, by name, most called first. Redis counts
   * the commands a script or function runs as well as the {@code EVALSHA}/{@code FCALL} itself.
   */
  Map<String, CommandStat> commands() {
    return commands(info("commandstats"));
  }

  /** Parses {@code INFO commandstats} lines ({@code cmdstat_NAME -> calls=..,usec=..,...}). */
  static Map<String, CommandStat> commands(Map<String, String> commandstats) {
    Map<String, CommandStat> stats = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : commandstats.entrySet()) {
      String command = e.getKey().substring("cmdstat_".length());
      if (command.equals("info") || command.startsWith("config")) {
        continue; // this side connection's own (Redis 7 names subcommands "config|resetstat")
      }
      Map<String, String> fields = new LinkedHashMap<>();
      for (String pair : e.getValue().split(",")) {
        int eq = pair.indexOf('=');
        fields.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
      stats.put(command, new CommandStat(Long.parseLong(fields.get("calls")),
          Double.parseDouble(fields.get("usec_per_call")),
          Long.parseLong(fields.getOrDefault("failed_calls", "0"))));
    }
    Map<String, CommandStat> sorted = new LinkedHashMap<>();
    stats.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().calls(), a.getValue().calls()))
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  /** The server process's CPU time so far. */
  Cpu cpu() {
    Map<String, String> cpu = info("cpu");
    return new Cpu(Double.parseDouble(cpu.get("used_cpu_user")),
        Double.parseDouble(cpu.get("used_cpu_sys")));
  }

  /** {@code redis_version} from {@code INFO server}. */
  String version() {
    return info("server").getOrDefault("redis_version", "unknown");
  }

  /** One {@code INFO} section as name-value pairs. */
  Map<String, String> info(String section) {
    return parseInfo((String) client.command("INFO", section));
  }

  /** Parses the text of an {@code INFO} reply into name-value pairs, skipping section headers. */
  static Map<String, String> parseInfo(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : text.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        values.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return values;
  }

  /**
   * Deletes every key matching the glob {@code pattern} ({@code SCAN MATCH}, then {@code DEL} in
   * batches: freed now, between contenders, not by a background thread or by expiry during the
   * next contender's measurement). Returns how many were deleted.
   */
  long deleteMatching(String pattern) {
    long deleted = 0;
    String cursor = "0";
    do {
      List<?> reply = (List<?>) client.command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
      cursor = (String) reply.get(0);
      List<?> keys = (List<?>) reply.get(1);
      if (!keys.isEmpty()) {
        List<String> del = new ArrayList<>(keys.size() + 1);
        del.add("DEL");
        keys.forEach(k -> del.add((String) k));
        deleted += (Long) client.command(del.toArray(new String[0]));
      }
    } while (!cursor.equals("0"));
    return deleted;
  }

  /** The side connection, for other commands ({@code SCAN}, {@code MEMORY USAGE}). */
  RespClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
  }
}
