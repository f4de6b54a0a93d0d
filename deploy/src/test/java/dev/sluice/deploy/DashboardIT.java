package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (Debian's chromium and chromedriver, driven by
 * Selenium) against a real node: it loads with no console error, shows one row per replica,
 * follows a +1 without a reload, and its tokens/s chart receives points while load runs. Also
 * {@code GET /api/events} read as a client would: valid SSE, at least one event a second.
 * Saves a screenshot to {@code target/dashboard.png} (and to the file named by the system
 * property {@code sluice.dashboard.screenshot}, e.g. docs/img/dashboard.png).
 */
class DashboardIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  private static SluiceNode node;

  @BeforeAll
  static void start() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 20, 10, 32), ConfigFactory.empty());
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static String base() {
    return "http://127.0.0.1:" + node.apiPort().orElseThrow();
  }

  private static WebDriver browser() {
    assertThat(CHROMEDRIVER).as("Debian's chromium-driver (./run-tests installs it)").exists();
    assertThat(CHROMIUM).as("Debian's chromium (./run-tests installs it)").exists();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--window-size=1400,1500");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
    // The driver is Debian's: Selenium's own manager would try to download one.
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }

  private static int rows(WebDriver driver) {
    return driver.findElements(By.cssSelector("#replicas tbody tr")).size();
  }

  private static int replicasInStatus() throws Exception {
    int count = 0;
    for (JsonNode replica : TestNodes.status(node).path("applications").get(0)
        .path("deployments").get(0).path("replicas")) {
      count++;
    }
    return count;
  }

  @Test
  void liveDashboardInARealBrowser() throws Exception {
    WebDriver driver = browser();
    ExecutorService load = Executors.newFixedThreadPool(6);
    AtomicBoolean loading = new AtomicBoolean(true);
    try {
      WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
      driver.get(base() + "/");
      wait.until(d -> rows(d) == 2);
      assertThat(rows(driver)).isEqualTo(replicasInStatus());
      assertThat(driver.findElement(By.id("connection")).getText()).containsIgnoringCase(
          "connected");
      assertThat(driver.findElement(By.id("transport")).getText()).isEqualTo("plain TCP");
      assertThat(driver.findElement(By.id("api-guard")).getText()).isEqualTo("no token");

      JavascriptExecutor js = (JavascriptExecutor) driver;
      js.executeScript("window.sluiceTestMarker = 'same page';");
      driver.findElement(By.cssSelector("button.scale-up[data-deployment='llm/sim']")).click();
      wait.until(d -> rows(d) == 3);
      assertThat(js.executeScript("return window.sluiceTestMarker;")).isEqualTo("same page");

      for (int i = 0; i < 6; i++) {
        load.submit(() -> {
          while (loading.get()) {
            TestNodes.post(node.ingressPort().orElseThrow(), "/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"chart me\"}],\"stream\":true,"
                    + "\"max_tokens\":32}");
          }
          return null;
        });
      }
      wait.until(d -> {
        String last = d.findElement(By.id("chart-tokens")).getAttribute("data-last");
        return last != null && !last.isEmpty() && !last.equals("null")
            && Double.parseDouble(last) > 0;
      });
      assertThat(Integer.parseInt(driver.findElement(By.id("chart-tokens"))
          .getAttribute("data-points"))).isGreaterThan(1);
      wait.until(d -> !d.findElements(By.cssSelector("#replicas tbody tr")).isEmpty()
          && d.findElement(By.cssSelector("#replicas tbody")).getText()
              .matches("(?s).*\\d+\\.\\d.*"));

      byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
      Files.write(Path.of("target", "dashboard.png"), png);
      String copy = System.getProperty("sluice.dashboard.screenshot");
      if (copy != null && !copy.isBlank()) {
        Files.write(Path.of(copy), png);
      }

      List<LogEntry> problems = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
          .filter(entry -> entry.getLevel().intValue() >= Level.WARNING.intValue()).toList();
      assertThat(problems).as("console errors and warnings").isEmpty();
    } finally {
      loading.set(false);
      load.shutdown();
      load.awaitTermination(30, TimeUnit.SECONDS);
      driver.quit();
    }
  }

  @Test
  void aReplicaRowNamesTheGpusItsServerHoldsAndTheNodesRowItsGpusAllocated() throws Exception {
    SluiceNode gpuNode = TestNodes.local(GpuPlacementIT.app(1), ConfigFactory.parseString(
        "sluice.replica.gpus = \"GPU-5e1f\""));
    WebDriver driver = browser();
    try {
      driver.get("http://127.0.0.1:" + gpuNode.apiPort().orElseThrow() + "/");
      // its row appears while it starts; the GPUs are known once its server runs
      assertThat(firstRow(driver, "#replicas", "RUNNING")).contains("GPU-5e1f");
      assertThat(firstRow(driver, "#members", "allocated"))
          .contains(gpuNode.system().address().toString()).endsWith("1 of 1 allocated");
    } finally {
      driver.quit();
      gpuNode.close();
    }
  }

  /**
   * The text of the first row of {@code table} once it contains {@code word} (the tables are
   * drawn anew every second: a row read as it is replaced is read again).
   */
  private static String firstRow(WebDriver driver, String table, String word) {
    return new WebDriverWait(driver, Duration.ofSeconds(30))
        .ignoring(StaleElementReferenceException.class).until(d -> {
          List<WebElement> rows = d.findElements(By.cssSelector(table + " tbody tr"));
          String text = rows.isEmpty() ? "" : rows.get(0).getText();
          return text.contains(word) ? text : null;
        });
  }

  @Test
  void theEventsAreValidSseAtLeastOnceASecond() throws Exception {
    HttpResponse<InputStream> response = TestNodes.HTTP.send(HttpRequest.newBuilder(
            URI.create(base() + "/api/events")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElse(""))
        .startsWith("text/event-stream");
    List<String> names = new ArrayList<>();
    List<Long> snapshotArrivals = new ArrayList<>();
    int appsSeen = 0;
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(),
        StandardCharsets.UTF_8))) {
      String event = null;
      String line;
      while (System.nanoTime() < end && (line = reader.readLine()) != null) {
        if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ")) {
          JsonNode data = JSON.readTree(line.substring(6));  // every data line is JSON
          assertThat(event).as("data before its event name").isNotNull();
          names.add(event);
          if (event.equals("history")) {
            assertThat(data.path("points").isArray()).isTrue();
          } else {
            assertThat(event).isEqualTo("snapshot");
            assertThat(data.has("cluster") && data.has("applications") && data.has("actors")
                && data.has("totals")).as(line).isTrue();
            assertThat(data.path("applications")).as("apps without their config (engine env)")
                .allSatisfy(app -> assertThat(app.has("deployed_app_config")).isFalse());
            appsSeen += data.path("applications").size();
            snapshotArrivals.add(System.nanoTime());
          }
        } else if (line.isEmpty()) {
          event = null;
        } else {
          assertThat(line).as("an SSE field").matches("(retry|id): .*|:.*");
        }
      }
    }
    assertThat(names.get(0)).isEqualTo("history");
    assertThat(appsSeen).as("apps in the snapshots").isPositive();
    assertThat(snapshotArrivals).hasSizeGreaterThanOrEqualTo(5);
    for (int i = 1; i < snapshotArrivals.size(); i++) {
      assertThat(snapshotArrivals.get(i) - snapshotArrivals.get(i - 1))
          .as("gap between snapshots (ns)").isLessThan(TimeUnit.MILLISECONDS.toNanos(1500));
    }
  }

  @Test
  void everyAssetComesFromTheJar() throws Exception {
    HttpResponse<String> page = TestNodes.get(node.apiPort().orElseThrow(), "/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).doesNotContain("http://", "https://", "//cdn");
    for (String asset : List.of("/dashboard.js", "/dashboard.css", "/vendor/uPlot.iife.min.js",
        "/vendor/uPlot.min.css")) {
      HttpResponse<String> response = TestNodes.get(node.apiPort().orElseThrow(), asset);
      assertThat(response.statusCode()).as(asset).isEqualTo(200);
      assertThat(response.body()).as(asset).isNotEmpty();
    }
  }
}
