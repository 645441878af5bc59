package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The executable jar that {@code ./windowpane} runs carries the dashboard: its own page and the
 * chart library from the uPlot WebJar, at the paths DashboardApi reads (it refuses to start
 * without them).
 */
class DashboardJarIT {

  @Test
  void shadedJar_holdsThePageAndTheChartLibrary() throws Exception {
    try (ZipFile jar = new ZipFile(Path.of("target", "windowpane.jar").toFile())) {
      for (String entry : new String[] {
          "io/windowpane/server/dashboard/index.html",
          "io/windowpane/server/dashboard/dashboard.js",
          "io/windowpane/server/dashboard/dashboard.css",
          "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.iife.min.js",
          "META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css",
          "META-INF/resources/webjars/uplot/1.6.30/LICENSE"}) {
        assertThat(jar.getEntry(entry)).as(entry).isNotNull();
      }
    }
  }
}
