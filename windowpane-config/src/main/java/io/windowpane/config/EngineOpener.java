package io.windowpane.config;

import io.windowpane.Failover;
import io.windowpane.OnFailure;
import io.windowpane.Windowpane;
import io.windowpane.redis.RedisEngine;
import io.windowpane.config.EngineConfig.Kind;
import io.windowpane.spi.Engine;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the engines an {@link EngineConfig} names. A single engine connects at once and fails
 * fast (Redis unreachable: the service does not start). A chain's remote members are built
 * deferred ({@code buildDeferred()}): one that cannot connect starts DOWN and joins once its
 * backend answers, so the chain starts on its fallback during an outage. If building a member
 * fails otherwise (bad options), those already built are closed before the failure goes up, so
 * a service that cannot start leaves no connection or thread behind.
 */
public final class EngineOpener {

  private EngineOpener() {}

  public static Engine open(EngineConfig config) {
    if (!config.chain()) {
      return member(config, config.kind(), false);
    }
    List<Engine> members = new ArrayList<>();
    try {
      for (Kind kind : config.engines()) {
        members.add(member(config, kind, true));
      }
      return config.failover().applyTo(Failover.chain(members))
          .onFailure(OnFailure.valueOf(config.onFailure().name()))
          .build();
    } catch (RuntimeException e) {
      for (Engine built : members) {
        try {
          built.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private static Engine member(EngineConfig config, Kind kind, boolean deferred) {
    switch (kind) {
      case REDIS:
        RedisEngine.Builder redis = redis(config.redis());
        return deferred ? redis.buildDeferred() : redis.build();
      case ETCD:
        return deferred ? config.etcd().builder().buildDeferred() : config.etcd().builder().build();
      default:
        Windowpane.LocalBuilder local = Windowpane.localBuilder();
        config.localMaxKeys().ifPresent(local::maxKeys);
        return local.buildEngine();
    }
  }

  private static RedisEngine.Builder redis(RedisSettings redis) {
    RedisEngine.Builder b = RedisEngine.builder();
    if (redis.cluster()) {
      b.cluster(redis.uris().toArray(new String[0]));
    } else {
      b.uri(redis.uris().get(0));
    }
    if (redis.username() != null) {
      b.username(redis.username());
    }
    if (redis.password() != null) {
      b.password(redis.password());
    }
    if (redis.database() != null) {
      b.database(redis.database());
    }
    b.timeout(redis.timeout()).connectTimeout(redis.connectTimeout()).scripts(redis.scripts());
    if (redis.clientTime()) {
      b.clientTime();
    }
    return b;
  }
}
