package io.windowpane;

/**
 * What an engine's memory guard last saw of its store's memory ({@code Engine.memoryStatus()}):
 * a snapshot, read by the guard on its own schedule, never on a decision's path.
 *
 * <p>On a Redis Cluster the level is the worst primary's, the byte figures the sum over the
 * primaries. {@code limitBytes} is Redis's {@code maxmemory}, or the configured budget where
 * {@code maxmemory} is 0, or 0 when there is neither (then the level stays {@link Level#NORMAL}
 * unless Redis itself refuses writes with {@code OOM}).
 *
 * @param level the level now (with hysteresis: see {@link Level})
 * @param usedBytes Redis's {@code used_memory}
 * @param limitBytes the bytes the levels are fractions of; 0: none
 * @param evictionPolicy Redis's {@code maxmemory_policy}, e.g. {@code noeviction}
 * @param evictedKeys keys Redis evicted since the guard started ({@code evicted_keys} of
 *     {@code INFO stats}): with an eviction policy, windows Redis forgot
 * @param outOfMemoryErrors calls Redis refused with {@code OOM} since the guard started
 * @param refusedCreations calls (or batch items) refused because they would have created a key
 *     under pressure, since the guard started
 * @param levelChanges level changes since the guard started
 */
public record MemoryStatus(Level level, long usedBytes, long limitBytes, String evictionPolicy,
    long evictedKeys, long outOfMemoryErrors, long refusedCreations, long levelChanges) {

  /**
   * The guard's levels: {@code NORMAL} below the warn fraction of the limit (default 70 %),
   * {@code WARN} from it, {@code PRESSURE} from the pressure fraction (default 85 %), where
   * writes that would create a key are refused. A level is left downwards only once usage falls
   * the hysteresis (default 5 points) below its threshold, so a store hovering at a threshold
   * does not flap. {@code UNKNOWN}: the store refuses to tell its memory (Redis answers
   * {@code INFO} with an error, e.g. an ACL user without {@code +info}), so the guard cannot
   * warn before the store itself refuses writes; its own refusals ({@code OOM}) still put it at
   * {@code PRESSURE}. Worst first: {@code PRESSURE}, {@code WARN}, {@code UNKNOWN},
   * {@code NORMAL}.
   */
  public enum Level {
    NORMAL, WARN, PRESSURE, UNKNOWN
  }

  /** {@code usedBytes / limitBytes}, or 0 without a limit. */
  public double usage() {
    return limitBytes <= 0 ? 0 : (double) usedBytes / limitBytes;
  }
}
