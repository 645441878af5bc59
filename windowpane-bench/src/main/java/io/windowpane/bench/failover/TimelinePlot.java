package io.windowpane.bench.failover;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * Draws a trial's timeline as a PNG with Java2D (headless): decisions per second above, p50 and
 * p99 decision latency (log scale) below, per 100 ms bucket, the background shaded by the engine
 * taking writes (from the chain's own reports), and the fault, trip, restart and recovery marked.
 */
final class TimelinePlot {

  private static final int WIDTH = 1200;
  private static final int HEIGHT = 780;
  private static final int LEFT = 90;
  private static final int RIGHT = 30;
  private static final int TOP = 110;
  private static final int PANEL = 270;
  private static final int GAP = 60;
  /** The latency axis starts at 1 µs: local decisions take a few. */
  private static final double FLOOR_MS = 0.001;

  private static final Color REDIS_BG = new Color(0xDCE9F7);
  private static final Color LOCAL_BG = new Color(0xFDE3C8);
  private static final Color GRID = new Color(0xD0D0D0);
  private static final Color RATE = new Color(0x1F4E9A);
  private static final Color P99 = new Color(0xC0392B);
  private static final Color P50 = new Color(0x2E7D32);
  private static final Color SCHED = new Color(0x888888);

  private TimelinePlot() {}

  static void write(Timeline t, List<TimelineTable.Row> rows, double offered, String title,
      String subtitle, Path out) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    double seconds = rows.isEmpty() ? 1 : rows.get(rows.size() - 1).toNanos() / 1e9;
    Axis x = new Axis(LEFT, WIDTH - RIGHT, 0, seconds);

    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
    g.drawString(title, LEFT, 28);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    g.drawString(subtitle, LEFT, 48);
    legend(g);

    int top1 = TOP;
    int top2 = TOP + PANEL + GAP;
    double maxRate = Math.max(offered, rows.stream()
        .mapToDouble(TimelineTable.Row::decisionsPerSecond).max().orElse(1)) * 1.15;
    shade(g, t, x, top1);
    shade(g, t, x, top2);
    // decisions per second
    Axis y1 = new Axis(top1 + PANEL, top1, 0, maxRate);
    for (double v : ticks(maxRate)) {
      grid(g, x, y1.px(v), String.format(Locale.ROOT, "%,.0f", v));
    }
    dashed(g, SCHED, x.px(0), y1.px(offered), x.px(seconds), y1.px(offered));
    g.setColor(SCHED);
    g.drawString(String.format(Locale.ROOT, "offered %,.0f/s", offered), (int) x.px(0) + 4,
        (int) y1.px(offered) - 4);
    line(g, rows, x, y1, TimelineTable.Row::decisionsPerSecond, RATE, 2f);
    axisLabel(g, "decisions/s", top1);

    // latency, log scale in ms
    double maxMs = Math.max(10,
        rows.stream().mapToDouble(r -> nan0(r.p99Millis())).max().orElse(10));
    double hi = Math.pow(10, Math.ceil(Math.log10(maxMs)));
    Axis y2 = new Axis(top2 + PANEL, top2, Math.log10(FLOOR_MS), Math.log10(hi));
    for (double d = FLOOR_MS; d <= hi * 1.001; d *= 10) {
      grid(g, x, y2.px(Math.log10(d)), TimelineTable.ms(d) + " ms");
    }
    dashed(g, P99, x.px(0), y2.px(Math.log10(5)), x.px(seconds), y2.px(Math.log10(5)));
    g.setColor(P99);
    g.drawString("5 ms: goal for the fallback's p99", (int) x.px(seconds) - 210,
        (int) y2.px(Math.log10(5)) - 4);
    line(g, rows, x, y2, r -> Math.log10(Math.max(FLOOR_MS, r.p99FromScheduleMillis())), SCHED, 1f);
    line(g, rows, x, y2, r -> Math.log10(Math.max(FLOOR_MS, r.p50Millis())), P50, 1.5f);
    line(g, rows, x, y2, r -> Math.log10(Math.max(FLOOR_MS, r.p99Millis())), P99, 2f);
    axisLabel(g, "latency", top2);

    // x axis
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    for (int s = 0; s <= seconds; s++) {
      int px = (int) x.px(s);
      g.drawLine(px, top2 + PANEL, px, top2 + PANEL + 4);
      g.drawString(Integer.toString(s), px - 3, top2 + PANEL + 17);
    }
    g.drawString("seconds since the trial started (100 ms buckets)", LEFT + 380,
        top2 + PANEL + 34);
    marks(g, t, x, top1, top2 + PANEL);
    g.dispose();
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    ImageIO.write(img, "png", out.toFile());
  }

  /** A linear map from values to pixels. */
  private record Axis(double p0, double p1, double v0, double v1) {
    double px(double v) {
      return p0 + (v - v0) / (v1 - v0) * (p1 - p0);
    }
  }

  private static double nan0(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  private static List<Double> ticks(double max) {
    double step = Math.pow(10, Math.floor(Math.log10(max / 4)));
    if (max / step > 10) {
      step *= max / step > 20 ? 5 : 2;
    }
    List<Double> out = new ArrayList<>();
    for (double v = 0; v <= max; v += step) {
      out.add(v);
    }
    return out;
  }

  private static void shade(Graphics2D g, Timeline t, Axis x, int top) {
    double end = x.v1();
    double from = 0;
    String active = t.activeAt(0);
    List<double[]> spans = new ArrayList<>();
    List<String> who = new ArrayList<>();
    for (Timeline.Transition tr : t.transitions()) {
      if (!tr.engine().equals(Timeline.ENGINES[Timeline.PRIMARY])) {
        continue;
      }
      double at = tr.atNanos() / 1e9;
      String next = t.activeAt(tr.atNanos());
      if (!next.equals(active)) {
        spans.add(new double[] {from, at});
        who.add(active);
        from = at;
        active = next;
      }
    }
    spans.add(new double[] {from, end});
    who.add(active);
    for (int i = 0; i < spans.size(); i++) {
      g.setColor(who.get(i).equals(Timeline.ENGINES[Timeline.PRIMARY]) ? REDIS_BG : LOCAL_BG);
      int a = (int) x.px(spans.get(i)[0]);
      int b = (int) Math.ceil(x.px(Math.min(end, spans.get(i)[1])));
      g.fillRect(a, top, Math.max(1, b - a), PANEL);
    }
    g.setColor(Color.GRAY);
    g.drawRect((int) x.p0(), top, (int) (x.p1() - x.p0()), PANEL);
  }

  private static void grid(Graphics2D g, Axis x, double py, String label) {
    g.setColor(GRID);
    g.drawLine((int) x.p0(), (int) py, (int) x.p1(), (int) py);
    g.setColor(Color.DARK_GRAY);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawString(label, (int) x.p0() - 8 - g.getFontMetrics().stringWidth(label), (int) py + 4);
  }

  private static void axisLabel(Graphics2D g, String text, int top) {
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
    g.drawString(text, 8, top - 8);
  }

  private static void line(Graphics2D g, List<TimelineTable.Row> rows, Axis x, Axis y,
      ToDoubleFunction<TimelineTable.Row> value, Color color, float width) {
    Path2D path = new Path2D.Double();
    boolean pen = false;
    for (TimelineTable.Row r : rows) {
      double v = value.applyAsDouble(r);
      if (Double.isNaN(v)) { // no decision completed in the bucket: a gap in the latency lines
        pen = false;
        continue;
      }
      double px0 = x.px(r.fromNanos() / 1e9);
      double px1 = x.px(r.toNanos() / 1e9);
      double py = y.px(Math.max(y.v0(), Math.min(y.v1(), v)));
      if (!pen) {
        path.moveTo(px0, py);
        pen = true;
      } else {
        path.lineTo(px0, py);
      }
      path.lineTo(px1, py);
    }
    Stroke old = g.getStroke();
    g.setStroke(new BasicStroke(width));
    g.setColor(color);
    g.draw(path);
    g.setStroke(old);
  }

  private static void dashed(Graphics2D g, Color c, double x0, double y0, double x1, double y1) {
    Stroke old = g.getStroke();
    g.setStroke(new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
        new float[] {6f, 4f}, 0f));
    g.setColor(c);
    g.drawLine((int) x0, (int) y0, (int) x1, (int) y1);
    g.setStroke(old);
  }

  private static void marks(Graphics2D g, Timeline t, Axis x, int top, int bottom) {
    String faultName = t.label.startsWith("hang") ? "SIGSTOP" : "SIGKILL";
    String backName = t.label.startsWith("hang") ? "SIGCONT" : "new redis-server";
    long[] at = {t.faultAt(), t.tripAt(), t.restartAt(), t.reconnectedAt(), t.recoveredAt()};
    String[] names = {faultName, "redis tripped", backName, "connection back", "chain on redis"};
    Color[] colors = {Color.BLACK, new Color(0xB35900), new Color(0x2E7D32), Color.GRAY, RATE};
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    for (int i = 0; i < at.length; i++) {
      if (at[i] == Timeline.NONE) {
        continue;
      }
      int px = (int) x.px(at[i] / 1e9);
      g.setColor(colors[i]);
      Stroke old = g.getStroke();
      g.setStroke(new BasicStroke(1.2f));
      g.drawLine(px, top, px, bottom);
      g.setStroke(old);
      String label = String.format(Locale.ROOT, "%s %.2f s", names[i], at[i] / 1e9);
      int w = g.getFontMetrics().stringWidth(label);
      int lx = i % 2 == 0 ? px + 3 : px - w - 3;
      g.drawString(label, lx, top + 14 + 14 * i);
    }
  }

  private static void legend(Graphics2D g) {
    int y = 70;
    int x = LEFT;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    x = swatch(g, x, y, REDIS_BG, "redis takes writes");
    x = swatch(g, x, y, LOCAL_BG, "local fallback takes writes");
    x = key(g, x, y, RATE, "decisions/s");
    x = key(g, x, y, P99, "p99 decision latency");
    x = key(g, x, y, P50, "p50");
    key(g, x, y, SCHED, "p99 from the paced schedule");
  }

  private static int swatch(Graphics2D g, int x, int y, Color c, String text) {
    g.setColor(c);
    g.fillRect(x, y - 10, 22, 12);
    g.setColor(Color.GRAY);
    g.drawRect(x, y - 10, 22, 12);
    g.setColor(Color.BLACK);
    g.drawString(text, x + 28, y);
    return x + 40 + g.getFontMetrics().stringWidth(text);
  }

  private static int key(Graphics2D g, int x, int y, Color c, String text) {
    Stroke old = g.getStroke();
    g.setStroke(new BasicStroke(2f));
    g.setColor(c);
    g.drawLine(x, y - 4, x + 22, y - 4);
    g.setStroke(old);
    g.setColor(Color.BLACK);
    g.drawString(text, x + 28, y);
    return x + 40 + g.getFontMetrics().stringWidth(text);
  }
}
