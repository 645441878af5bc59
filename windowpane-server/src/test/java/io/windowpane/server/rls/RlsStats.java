package io.windowpane.server.rls;

import io.windowpane.server.WindowpaneServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The five rate limit service meters of one {@code descriptor} tag, read from /metrics. */
record RlsStats(long total, long over, long near, long within, long shadow) {

  static RlsStats of(WindowpaneServer server, String descriptor) throws IOException {
    String text = scrape(server);
    return new RlsStats(meter(text, "total_hits", descriptor),
        meter(text, "over_limit", descriptor), meter(text, "near_limit", descriptor),
        meter(text, "within_limit", descriptor), meter(text, "shadow_mode", descriptor));
  }

  RlsStats minus(RlsStats o) {
    return new RlsStats(total - o.total, over - o.over, near - o.near, within - o.within,
        shadow - o.shadow);
  }

  private static long meter(String text, String name, String descriptor) {
    Matcher m = Pattern.compile("^windowpane_rls_" + name + "_total\\{descriptor=\""
        + Pattern.quote(descriptor) + "\"} ([0-9.E]+)$", Pattern.MULTILINE).matcher(text);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /**
   * {@code /metrics}, on a connection closed after the reply: a kept-alive one would hold the
   * server's graceful stop for its whole timeout (about a second a test).
   */
  static String scrape(WindowpaneServer server) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(server.url() + "/metrics").toURL()
        .openConnection();
    c.setRequestProperty("Connection", "close");
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }
}
