package io.windowpane.redis;

/** How the Redis engine runs its server-side code. */
public enum ScriptMode {

  /** {@link #FUNCTIONS} where the server has them (Redis 7+), else {@link #EVALSHA}. */
  AUTO,

  /**
   * {@code FCALL} into the {@code windowpane} function library, loaded with
   * {@code FUNCTION LOAD} when absent or older (on every primary of a cluster), and reloaded by
   * itself if a server answers "Function not found" (a new node, a flushed library).
   */
  FUNCTIONS,

  /**
   * {@code EVALSHA} of the same Lua text (Redis 6, or servers where {@code FUNCTION LOAD} is not
   * allowed); after {@code NOSCRIPT} (restart, failover, {@code SCRIPT FLUSH}) the call is
   * repeated once with {@code EVAL}, which caches the script again.
   */
  EVALSHA
}
