package io.windowpane.bench.failover;

import io.windowpane.bench.redis.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The drill's command line, validated at once.
 *
 * @param threads caller threads of the kill and hang trials
 * @param rate decisions per second offered in all, paced (each thread {@code rate / threads})
 * @param warmup load on a throw-away chain and server before the first trial (JIT)
 * @param keys keys of the limiter and the counter, drawn uniformly
 * @param healthy load on a healthy Redis before the fault, first trial of each kind
 * @param down how long the fault lasts, first trial of each kind
 * @param after load once the chain is back on Redis, first trial of each kind
 * @param repeatPhase healthy, down and after of every later trial
 * @param killTrials trials of the kill (SIGKILL, then a new server)
 * @param hangTrials trials of the hang (SIGSTOP, then SIGCONT)
 * @param fleetNodes chains ("nodes") of the fleet scenario, each at {@code fleetNodes(n)}
 * @param fleetLimit the hot key's limit per second of the fleet scenario
 * @param fleetOffer what each node offers, as a multiple of its share {@code limit / nodes}
 * @param fleetHealthy the fleet scenario's load on a healthy Redis before the kill
 * @param fleetOutage how long Redis stays dead in the fleet scenario
 * @param fleetAfter the fleet scenario's load once every node is back on Redis
 * @param fleetLeasing whether the fleet's limiter leases slices of the hot key
 *     ({@code Leasing.defaults()}): the bound across a trip and a recovery with leasing on
 * @param scenarios which of {@code kill}, {@code hang}, {@code fleet} to run, in that order
 * @param out the results folder
 * @param budget the run's time limit: a trial that would end past it is skipped, and 60 s past
 *     it the process exits (status 3) whatever it is doing
 */
record DrillOptions(int threads, int rate, Duration warmup, int keys, Duration healthy,
    Duration down, Duration after, Duration repeatPhase, int killTrials, int hangTrials,
    int fleetNodes,
    long fleetLimit, double fleetOffer, Duration fleetHealthy, Duration fleetOutage,
    Duration fleetAfter, boolean fleetLeasing, List<String> scenarios, Path out,
    Duration budget) {

  static final String USAGE = """
      usage: FailoverDrill [--threads 8] [--rate 5000] [--warmup 3s] [--keys 4096]
          [--healthy 3s] [--down 3s] [--after 3s] [--repeat-phase 1s]
          [--kill-trials 5] [--hang-trials 3]
          [--fleet-nodes 4] [--fleet-limit 1000] [--fleet-offer 2.0]
          [--fleet-healthy 3s] [--fleet-outage 4s] [--fleet-after 3s] [--fleet-leasing false]
          [--scenarios kill,hang,fleet] [--out DIR] [--budget 150s]
      durations: 10s, 500ms, 2m or plain seconds""";

  static DrillOptions parse(String[] args) {
    int threads = 8;
    int rate = 5_000;
    Duration warmup = Duration.ofSeconds(3);
    int keys = 4096;
    Duration healthy = Duration.ofSeconds(3);
    Duration down = Duration.ofSeconds(3);
    Duration after = Duration.ofSeconds(3);
    Duration repeatPhase = Duration.ofSeconds(1);
    int killTrials = 5;
    int hangTrials = 3;
    int fleetNodes = 4;
    long fleetLimit = 1_000;
    double fleetOffer = 2.0;
    Duration fleetHealthy = Duration.ofSeconds(3);
    Duration fleetOutage = Duration.ofSeconds(4);
    Duration fleetAfter = Duration.ofSeconds(3);
    boolean fleetLeasing = false;
    List<String> scenarios = List.of("kill", "hang", "fleet");
    Path out = null;
    Duration budget = Duration.ofSeconds(150);
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(name + ": expected a value");
      }
      String value = args[++i];
      switch (name) {
        case "--threads" -> threads = (int) Options.number(name, value, 1, 256);
        case "--rate" -> rate = (int) Options.number(name, value, 1, 1_000_000);
        case "--warmup" -> warmup = Options.duration(name, value);
        case "--keys" -> keys = (int) Options.number(name, value, 1, 1_000_000);
        case "--healthy" -> healthy = positive(name, value);
        case "--down" -> down = positive(name, value);
        case "--after" -> after = positive(name, value);
        case "--repeat-phase" -> repeatPhase = positive(name, value);
        case "--kill-trials" -> killTrials = (int) Options.number(name, value, 1, 100);
        case "--hang-trials" -> hangTrials = (int) Options.number(name, value, 1, 100);
        case "--fleet-nodes" -> fleetNodes = (int) Options.number(name, value, 1, 64);
        case "--fleet-limit" -> fleetLimit = Options.number(name, value, 1, 1_000_000);
        case "--fleet-offer" -> fleetOffer = multiple(name, value);
        case "--fleet-healthy" -> fleetHealthy = positive(name, value);
        case "--fleet-outage" -> fleetOutage = positive(name, value);
        case "--fleet-after" -> fleetAfter = positive(name, value);
        case "--fleet-leasing" -> fleetLeasing = bool(name, value);
        case "--scenarios" -> scenarios = scenarios(value);
        case "--out" -> out = Path.of(value);
        case "--budget" -> budget = positive(name, value);
        default -> throw new IllegalArgumentException("unknown option " + name);
      }
    }
    if (fleetOutage.toMillis() < 2_000) {
      throw new IllegalArgumentException("--fleet-outage: expected at least 2s (a whole 1 s window"
          + " inside the outage after detection), got " + fleetOutage);
    }
    if (out == null) {
      String stamp = LocalDateTime.now(ZoneOffset.UTC)
          .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
      out = Path.of("windowpane-bench", "results", "failover-drill-" + stamp);
    }
    return new DrillOptions(threads, rate, warmup, keys, healthy, down, after, repeatPhase,
        killTrials, hangTrials, fleetNodes, fleetLimit, fleetOffer, fleetHealthy, fleetOutage,
        fleetAfter, fleetLeasing, scenarios, out, budget);
  }

  private static boolean bool(String name, String value) {
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(name + ": expected true or false, got "
          + value);
    };
  }

  private static Duration positive(String name, String value) {
    Duration d = Options.duration(name, value);
    if (d.isZero()) {
      throw new IllegalArgumentException(name + ": expected more than 0, got " + value);
    }
    return d;
  }

  private static double multiple(String name, String value) {
    try {
      double x = Double.parseDouble(value);
      if (x > 0 && x <= 100) {
        return x;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + ": expected a number in (0, 100], got " + value);
  }

  private static List<String> scenarios(String value) {
    List<String> chosen = List.of(value.split(",")).stream().map(String::trim).toList();
    for (String s : chosen) {
      if (!List.of("kill", "hang", "fleet").contains(s)) {
        throw new IllegalArgumentException(
            "--scenarios: expected kill, hang and/or fleet, got " + s);
      }
    }
    return List.of("kill", "hang", "fleet").stream().filter(chosen::contains).toList();
  }

  /** The settings as recorded in the results file. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("threads", threads);
    m.put("offeredDecisionsPerSecond", rate);
    m.put("warmupMillis", warmup.toMillis());
    m.put("keys", keys);
    m.put("healthyMillis", healthy.toMillis());
    m.put("downMillis", down.toMillis());
    m.put("afterMillis", after.toMillis());
    m.put("repeatPhaseMillis", repeatPhase.toMillis());
    m.put("killTrials", killTrials);
    m.put("hangTrials", hangTrials);
    m.put("fleetNodes", fleetNodes);
    m.put("fleetLimitPerSecond", fleetLimit);
    m.put("fleetOfferTimesShare", fleetOffer);
    m.put("fleetHealthyMillis", fleetHealthy.toMillis());
    m.put("fleetOutageMillis", fleetOutage.toMillis());
    m.put("fleetAfterMillis", fleetAfter.toMillis());
    m.put("scenarios", scenarios);
    m.put("out", out.toString());
    m.put("budgetMillis", budget.toMillis());
    return m;
  }
}
