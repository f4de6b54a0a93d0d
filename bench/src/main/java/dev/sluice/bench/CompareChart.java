package dev.sluice.bench;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The picture of a comparison: tokens/s, TTFT and ITL (p50 and p99) per target and concurrency,
 * bar charts stacked in one PNG; and when the serving processes' CPU was measured, a fourth: CPU
 * per delivered token per target, each bar split by process.
 */
public final class CompareChart {

  private CompareChart() {}

  /** @param byConcurrency results per concurrency level, targets in the same order each time */
  public static void write(Path file, Map<Integer, List<BenchResult>> byConcurrency,
      List<String> labels) throws IOException {
    System.setProperty("java.awt.headless", "true");
    DefaultCategoryDataset tokens = new DefaultCategoryDataset();
    DefaultCategoryDataset ttft = new DefaultCategoryDataset();
    DefaultCategoryDataset itl = new DefaultCategoryDataset();
    byConcurrency.forEach((concurrency, results) -> {
      String column = "c=" + concurrency;
      for (int t = 0; t < results.size(); t++) {
        BenchResult r = results.get(t);
        tokens.addValue(r.tokensPerSecond(), labels.get(t), column);
        ttft.addValue(r.ttftMs().p50(), labels.get(t) + " p50", column);
        ttft.addValue(r.ttftMs().p99(), labels.get(t) + " p99", column);
        itl.addValue(r.itlMs().p50(), labels.get(t) + " p50", column);
        itl.addValue(r.itlMs().p99(), labels.get(t) + " p99", column);
      }
    });
    DefaultCategoryDataset cpu = new DefaultCategoryDataset();
    byConcurrency.forEach((concurrency, results) -> {
      for (int t = 0; t < results.size(); t++) {
        String column = labels.get(t) + (byConcurrency.size() > 1 ? " c=" + concurrency : "");
        results.get(t).serverCpuMicrosPerToken().forEach((group, micros) -> {
          if (!group.equals(BenchResult.ALL)) {
            cpu.addValue(micros, group, column);
          }
        });
      }
    });
    List<JFreeChart> charts = new ArrayList<>(List.of(
      ChartFactory.createBarChart("Output tokens/s (higher is better)", "concurrency",
          "tokens/s", tokens, PlotOrientation.VERTICAL, true, false, false),
      ChartFactory.createBarChart("Time to first token, ms (lower is better)", "concurrency",
          "ms", ttft, PlotOrientation.VERTICAL, true, false, false),
      ChartFactory.createBarChart("Inter-token latency, ms (lower is better)", "concurrency",
          "ms", itl, PlotOrientation.VERTICAL, true, false, false)));
    if (cpu.getRowCount() > 0) {
      charts.add(ChartFactory.createStackedBarChart("Server CPU per delivered token, us, by "
          + "process (lower is better)", "target", "us", cpu, PlotOrientation.VERTICAL, true,
          false, false));
    }
    int width = 1000;
    int height = 420;
    BufferedImage image = new BufferedImage(width, height * charts.size(),
        BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height * charts.size());
    for (int i = 0; i < charts.size(); i++) {
      charts.get(i).setBackgroundPaint(Color.WHITE);
      charts.get(i).draw(g, new java.awt.geom.Rectangle2D.Double(0, i * height, width, height));
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
  }
}
