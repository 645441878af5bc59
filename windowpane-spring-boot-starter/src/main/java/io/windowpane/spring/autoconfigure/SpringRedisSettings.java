package io.windowpane.spring.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Fills in {@code windowpane.engine.redis} from the application's Spring Data Redis
 * {@link LettuceConnectionFactory}, so the connection is configured once: when the engine (or
 * a member of the chain) is {@code redis} and neither {@code uri} nor {@code cluster} is set, the
 * factory's host and port (or cluster nodes), TLS, user name, password and database are used.
 * Explicit {@code windowpane.engine.redis.*} values win. Sentinel set-ups are not read.
 */
final class SpringRedisSettings {

  private final Supplier<LettuceConnectionFactory> factory;

  SpringRedisSettings(Supplier<LettuceConnectionFactory> factory) {
    this.factory = factory;
  }

  @SuppressWarnings("unchecked")
  void fillIn(Map<String, Object> tree) {
    if (!(tree.get("engine") instanceof Map<?, ?> e)) {
      return;
    }
    Map<String, Object> engine = (Map<String, Object>) e;
    boolean wantsRedis = "redis".equals(engine.get("type"))
        || (engine.get("chain") instanceof List<?> chain && chain.contains("redis"));
    if (!wantsRedis) {
      return;
    }
    Map<String, Object> redis = engine.get("redis") instanceof Map<?, ?> r
        ? (Map<String, Object>) r : new LinkedHashMap<>();
    if (redis.containsKey("uri") || redis.containsKey("cluster")) {
      return;
    }
    LettuceConnectionFactory f = factory.get();
    if (f == null) {
      return;
    }
    String scheme = f.isUseSsl() ? "rediss://" : "redis://";
    RedisClusterConfiguration cluster = f.getClusterConfiguration();
    String username;
    char[] password;
    if (cluster != null) {
      List<String> seeds = new ArrayList<>();
      for (RedisNode node : cluster.getClusterNodes()) {
        seeds.add(scheme + node.getHost() + ":" + node.getPort());
      }
      redis.put("cluster", seeds);
      username = cluster.getUsername();
      password = cluster.getPassword().isPresent() ? cluster.getPassword().get() : null;
    } else {
      RedisStandaloneConfiguration s = f.getStandaloneConfiguration();
      redis.put("uri", scheme + s.getHostName() + ":" + s.getPort());
      if (s.getDatabase() != 0 && !redis.containsKey("database")) {
        redis.put("database", Integer.toString(s.getDatabase()));
      }
      username = s.getUsername();
      password = s.getPassword().isPresent() ? s.getPassword().get() : null;
    }
    if (username != null && !redis.containsKey("username")) {
      redis.put("username", username);
    }
    if (password != null && password.length > 0 && !redis.containsKey("password")
        && !redis.containsKey("passwordEnv")) {
      redis.put("password", new String(password));
    }
    engine.put("redis", redis);
  }
}
