package io.windowpane.bench.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Where and how a run happened: recorded beside every result. */
public final class Machine {

  private Machine() {}

  /**
   * Date, processors, CPU model, kernel, JVM, the server's version, the command line, and the
   * commit the runner script passes as {@code -Dwindowpane.bench.commit}.
   */
  public static Map<String, Object> describe(String redisVersion, String[] args) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    m.put("nproc", Runtime.getRuntime().availableProcessors());
    m.put("cpuModel", cpuModel());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    m.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
    m.put("redisVersion", redisVersion);
    m.put("commit", System.getProperty("windowpane.bench.commit", "unknown"));
    m.put("commandLine", ProcessHandle.current().info().commandLine().orElse("unknown"));
    m.put("args", List.of(args));
    return m;
  }

  /** The first {@code model name} of /proc/cpuinfo, or "unknown". */
  public static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(line -> line.startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
