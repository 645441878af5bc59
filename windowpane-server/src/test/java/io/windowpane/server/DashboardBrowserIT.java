package io.windowpane.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.windowpane.ManualClock;
import io.windowpane.Windowpane;
import io.windowpane.server.config.ServerConfig;
import io.windowpane.testkit.process.DebianPackages;
import io.windowpane.testkit.process.ServerBinary;
import io.windowpane.testkit.process.TestBinaries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium}, driven by Selenium
 * through Debian's {@code chromedriver}), against a running service on the local engine with
 * traffic: the charts get data, and the numbers on the page are those of the API. Chromium is
 * provisioned like redis-server: taken from {@code PATH}, else installed with apt-get (as root or
 * with passwordless sudo), else the test fails with the command to run; it never skips. Leaves
 * a screenshot in {@code target/dashboard.png}; with
 * {@code -Dwindowpane.dashboard.screenshot=../docs/img/dashboard.png} it writes the one
 * {@code docs/dashboard.md} shows instead (so a plain test run leaves the source tree as it was).
 *
 * <p>Every wait is on a condition of the page (or of the service), bounded by {@link #WAIT}; the
 * page polls once a second, so a run takes a few seconds once Chromium is up, three of them
 * waiting for the service's history to cover three seconds before the page opens.
 */
class DashboardBrowserIT {

  static final Duration WAIT = Duration.ofSeconds(30);
  static final Path SCREENSHOT =
      Path.of(System.getProperty("windowpane.dashboard.screenshot", "target/dashboard.png"));

  static final String CONFIG = String.join("\n",
      "server:",
      "  port: 0",
      "limiters:",
      "  demo:",
      "    - permits: 5",
      "      window: 1m",
      "      panes: 60",
      "  login:",
      "    - permits: 3",
      "      window: 10m",
      "counters:",
      "  hits:",
      "    window: 1m",
      "stats:",
      "  latency:",
      "    window: 1m",
      "    panes: 60",
      "");

  @TempDir
  static Path profile;
  static ChromeDriverService driverService;
  static WebDriver browser;

  WindowpaneServer server;

  @BeforeAll
  static void startChromium() {
    provision(List.of(TestBinaries.CHROMIUM, TestBinaries.CHROMEDRIVER));
    driverService = new ChromeDriverService.Builder()
        .usingDriverExecutable(TestBinaries.CHROMEDRIVER.locate().toFile())
        .usingAnyFreePort()
        .withLogFile(Path.of("target", "chromedriver.log").toFile())
        .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(TestBinaries.CHROMIUM.locate().toFile());
    // without the networking flags Chromium's own connections are refused here and slow it down
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1250",
        "--user-data-dir=" + profile.toAbsolutePath());
    options.setCapability("goog:loggingPrefs", java.util.Map.of(LogType.BROWSER, "ALL"));
    browser = new ChromeDriver(driverService, options);
  }

  /** Installs the Debian packages of the missing {@code binaries} in one apt-get run. */
  static void provision(List<ServerBinary> binaries) {
    List<String> missing = new ArrayList<>();
    for (ServerBinary b : binaries) {
      if (b.find().isEmpty()) {
        missing.add(b.aptPackage());
      }
    }
    if (!missing.isEmpty()) {
      DebianPackages.install(missing);
    }
  }

  @AfterAll
  static void stopChromium() {
    if (browser != null) {
      browser.quit();
    }
    if (driverService != null) {
      driverService.stop();
    }
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void page_drawsLiveCharts_andShowsTheNumbersOfTheApi() throws Exception {
    ManualClock clock = ManualClock.at(1_700_000_000_250L);
    server = WindowpaneServer.start(ServerConfig.parse(CONFIG, "dashboard.yaml"),
        Windowpane.localBuilder().clock(clock).build(), clock);
    Http http = new Http(server.url());
    for (int i = 0; i < 8; i++) {
      acquire(http, "demo", "alice"); // 5 allowed, 3 denied
    }
    acquire(http, "demo", "bob");
    http.post("/v1/counters/hits/add", "{\"key\":\"home\",\"n\":7}");
    http.post("/v1/stats/latency/record", "{\"key\":\"checkout\",\"values\":"
        + "[12,15,18,21,25,30,42,55,80,120]}");

    // history before the page opens: the service's sampler has filed these decisions, and
    // covers at least three seconds
    await("the service's history holds the 6 allowed and 3 denied, over 3 seconds or more",
        d -> {
          JsonNode history = http.get("/v1/dashboard/feed?history=true").json().path("history");
          long[] sums = historySums(history, "demo");
          return history.path("seconds").asInt() >= 3 && sums[0] == 6 && sums[1] == 3;
        });
    browser.get(server.url() + "/dashboard#limiters/demo");
    await("the history is drawn: its points, with the 6 allowed and 3 denied", d ->
        number(attribute("decisions-chart", "data-history-points")) >= 3
            && number(attribute("decisions-chart", "data-history-allowed")) == 6
            && number(attribute("decisions-chart", "data-history-denied")) == 3
            && number(attribute("decisions-chart", "data-points")) >= 3);
    assertThat(number(attribute("backend-chart", "data-history-points")))
        .as("the engine calls' history is drawn too").isGreaterThanOrEqualTo(3);

    // traffic while the page watches: a nonzero rate must reach the chart
    for (String key : List.of("carol", "dave", "erin")) {
      for (int i = 0; i < 6; i++) {
        acquire(http, "demo", key); // 5 allowed, 1 denied each
      }
    }
    await("a nonzero live rate is drawn", d -> Double.parseDouble(attribute("decisions-chart",
        "data-live-max")) > 0);

    JsonNode demo = http.get("/v1/dashboard/feed").json().path("limiters").get(0);
    assertThat(demo.path("name").asText()).isEqualTo("demo");
    assertThat(demo.path("allowed").asLong()).isEqualTo(5 + 1 + 15);
    assertThat(demo.path("denied").asLong()).isEqualTo(3 + 3);
    awaitText("allowed-total", demo.path("allowed").asText());
    awaitText("denied-total", demo.path("denied").asText());

    await("the backend latency chart has data", d -> Double.parseDouble(
        attribute("backend-chart", "data-max")) > 0);
    awaitText("engine-detail", "local");
    awaitText("health-status", "health up");
    JsonNode limit = http.get("/v1/limiters/demo").json().path("limits").get(0);
    assertThat(text("chosen-desc")).isEqualTo("limiter: " + limit.path("permits").asText()
        + " per " + limit.path("window").asText() + " (panes)");

    if (server.routes().contains("GET /v1/limiters/{limiter}/top")) {
      JsonNode top = http.get("/v1/limiters/demo/top?n=10&by=events").json().path("keys");
      List<String> expected = new ArrayList<>();
      for (JsonNode k : top) {
        expected.add(k.path("key").asText() + " " + k.path("count").asText() + " "
            + k.path("maxError").asText());
      }
      assertThat(expected).as("the traffic's five keys").hasSize(5);
      await("the top keys table has the API's rows " + expected,
          d -> expected.equals(topRows()));
    } else {
      awaitText("top-status", "not available (this service has no top keys)");
    }
    lookUp("alice");
    if (server.routes().contains("GET /v1/limiters/{limiter}/peek")) {
      JsonNode peek = http.get("/v1/limiters/demo/peek?key=alice&permits=1").json();
      awaitText("lookup-remaining", peek.path("remaining").asText());
      awaitText("lookup-retry", peek.path("retryAfterMillis").asText() + " ms");
    } else {
      awaitText("lookup-status", "not available (this service has no peek)");
    }
    Files.createDirectories(SCREENSHOT.getParent());
    Files.write(SCREENSHOT, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));

    choose("counters", "hits");
    lookUp("home");
    JsonNode count = http.get("/v1/counters/hits/count?key=home").json();
    assertThat(count.path("count").asLong()).isEqualTo(7);
    awaitText("lookup-count", "7");
    await("the key chart has a point", d -> number(attribute("key-chart", "data-points")) >= 1);

    choose("stats", "latency");
    lookUp("checkout");
    JsonNode summary = http.get("/v1/stats/latency/summary?key=checkout&quantiles=0.5,0.99")
        .json();
    awaitText("lookup-count", summary.path("count").asText());
    await("p50 and p99 are charted", d -> Double.parseDouble(attribute("key-chart",
        "data-max")) > 0);
    String[] quantiles = text("lookup-quantiles").split(" / ");
    assertThat(Double.parseDouble(quantiles[0].replace(",", ""))).isCloseTo(
        summary.path("quantiles").path("0.5").asDouble(), org.assertj.core.data.Offset.offset(
            0.001));
    assertThat(Double.parseDouble(quantiles[1].replace(",", ""))).isCloseTo(
        summary.path("quantiles").path("0.99").asDouble(), org.assertj.core.data.Offset.offset(
            0.001));
    assertThat(scriptErrors()).as("script errors and refused content in the console").isEmpty();
  }

  /**
   * The console's errors but those of requests answered with an error status (the page shows
   * those itself): a script exception or a Content-Security-Policy refusal would be here.
   */
  private static List<String> scriptErrors() {
    List<String> errors = new ArrayList<>();
    for (LogEntry entry : browser.manage().logs().get(LogType.BROWSER)) {
      if (entry.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()
          && !entry.getMessage().contains("Failed to load resource")) {
        errors.add(entry.getMessage());
      }
    }
    return errors;
  }

  @Test
  void withTokens_pageAsksForOne_thenShowsTheApi() throws Exception {
    String token = "browser-token-0123456789";
    server = WindowpaneServer.start(ServerConfig.parse(CONFIG.replace("server:\n  port: 0\n",
        "server:\n  port: 0\nauth:\n  tokens: [" + token + "]\n"), "auth.yaml"));
    browser.get(server.url() + "/dashboard#limiters/login");
    await("the token form shows", d -> d.findElement(By.id("token-form")).isDisplayed());
    assertThat(text("feed-status")).isEqualTo("token needed");
    browser.findElement(By.id("token-input")).sendKeys(token);
    browser.findElement(By.cssSelector("#token-form button")).click();
    awaitText("chosen-title", "login");
    awaitText("allowed-total", "0");
    assertThat(browser.findElement(By.id("token-form")).isDisplayed()).isFalse();
  }

  /** Allowed and denied (would-deny included) over the rows of {@code limiter}'s history. */
  private static long[] historySums(JsonNode history, String limiter) {
    long[] sums = new long[2];
    for (JsonNode l : history.path("limiters")) {
      if (l.path("name").asText().equals(limiter)) {
        for (JsonNode row : l.path("seconds")) {
          sums[0] += row.get(1).asLong();
          sums[1] += row.get(2).asLong() + row.get(3).asLong();
        }
      }
    }
    return sums;
  }

  /** The top keys table's rows, as "key count maxError". */
  private static List<String> topRows() {
    List<String> rows = new ArrayList<>();
    for (WebElement tr : browser.findElements(By.cssSelector("#top-table tbody tr"))) {
      List<WebElement> td = tr.findElements(By.tagName("td"));
      rows.add(td.get(0).getText() + " " + td.get(1).getText() + " " + td.get(2).getText());
    }
    return rows;
  }

  private static void acquire(Http http, String limiter, String key) {
    int status = http.post("/v1/limiters/" + limiter + "/acquire", "{\"key\":\"" + key + "\"}")
        .status();
    assertThat(status).isIn(200, 429);
  }

  private static void choose(String kind, String name) {
    browser.findElement(By.cssSelector("nav li[data-kind='" + kind + "'][data-name='" + name
        + "']")).click();
    awaitText("chosen-title", name);
  }

  private static void lookUp(String key) {
    WebElement input = browser.findElement(By.id("lookup-key"));
    input.clear();
    input.sendKeys(key);
    browser.findElement(By.id("lookup-go")).click();
  }

  private static void await(String what, Function<WebDriver, Boolean> condition) {
    new WebDriverWait(browser, WAIT).withMessage(what).ignoring(NumberFormatException.class)
        .ignoring(NullPointerException.class)
        .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
        .until(condition);
  }

  private static void awaitText(String id, String expected) {
    await("#" + id + " reads '" + expected + "'", d -> expected.equals(text(id)));
  }

  private static String text(String id) {
    return browser.findElement(By.id(id)).getText();
  }

  private static String attribute(String id, String name) {
    return browser.findElement(By.id(id)).getDomAttribute(name);
  }

  private static long number(String s) {
    return Long.parseLong(s);
  }
}
