package io.windowpane.bench.redis;

import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * What one contender did in one scenario's measurement interval.
 *
 * @param contender the contender's label
 * @param scenario the key set's name
 * @param seconds the measured interval
 * @param latency nanoseconds of every call that returned (lock give-ups included, errors not)
 * @param allowed calls that were allowed
 * @param denied calls that were denied
 * @param counted calls of a contender that decides nothing ({@code incr})
 * @param gaveUp lock give-ups
 * @param errors calls that threw
 * @param firstError the first failure seen, warmup included, if any
 * @param stuckThreads caller threads still in a call 10 s after the end (their counts are partial)
 * @param commands the server's command statistics for the interval, empty if unavailable
 * @param serverCpu the server's CPU seconds in the interval, if available
 * @param clientCpuSeconds this JVM's CPU seconds in the interval (the client library and the
 *     load driver together), NaN if the JVM cannot say
 */
public record Result(String contender, String scenario, double seconds, Histogram latency, long allowed,
    long denied, long counted, long gaveUp, long errors, Optional<String> firstError,
    int stuckThreads, Map<String, ServerStats.CommandStat> commands,
    Optional<ServerStats.Cpu> serverCpu, double clientCpuSeconds) {

  /** Calls that ended in a decision (or a count, for {@code incr}). */
  public long decisions() {
    return allowed + denied + counted;
  }

  /** This JVM's CPU per decision, in microseconds (NaN when unknown or no decisions). */
  public double clientMicrosPerDecision() {
    return decisions() == 0 ? Double.NaN : 1e6 * clientCpuSeconds / decisions();
  }

  public double decisionsPerSecond() {
    return decisions() / seconds;
  }

  /** A result for a contender that could not be set up at all. */
  public static Result unavailable(String contender, String scenario, String why) {
    return new Result(contender, scenario, 0, new Histogram(3), 0, 0, 0, 0, 0, Optional.of(why), 0,
        Map.of(), Optional.empty(), Double.NaN);
  }
}
