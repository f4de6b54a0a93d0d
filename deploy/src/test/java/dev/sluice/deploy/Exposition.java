package dev.sluice.deploy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A test's reading of a Prometheus text exposition: one {@link Sample} per sample line
 * ({@code name{label="value",...} value}), comments skipped, label values unescaped.
 */
record Exposition(List<Exposition.Sample> samples) {

  record Sample(String name, Map<String, String> labels, double value) {}

  static Exposition parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      Map<String, String> labels = new LinkedHashMap<>();
      String name;
      if (brace >= 0 && brace < space) {
        name = line.substring(0, brace);
        int i = brace + 1;
        while (line.charAt(i) != '}') {
          int eq = line.indexOf('=', i);
          String label = line.substring(i, eq);
          StringBuilder value = new StringBuilder();
          int j = eq + 2;  // after ="
          while (line.charAt(j) != '"') {
            char c = line.charAt(j);
            if (c == '\\') {
              char next = line.charAt(++j);
              value.append(next == 'n' ? '\n' : next);
            } else {
              value.append(c);
            }
            j++;
          }
          labels.put(label, value.toString());
          i = j + 1;
          if (line.charAt(i) == ',') {
            i++;
          }
        }
      } else {
        name = line.substring(0, space);
      }
      samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
    }
    return new Exposition(samples);
  }

  /** The sum of the samples named {@code name} whose labels include every pair given. */
  double sum(String name, String... labelPairs) {
    return samples.stream().filter(s -> s.name().equals(name) && matches(s, labelPairs))
        .mapToDouble(Sample::value).sum();
  }

  /** Whether any sample is named {@code name} with the labels given. */
  boolean has(String name, String... labelPairs) {
    return samples.stream().anyMatch(s -> s.name().equals(name) && matches(s, labelPairs));
  }

  private static boolean matches(Sample sample, String... labelPairs) {
    for (int i = 0; i + 1 < labelPairs.length; i += 2) {
      if (!labelPairs[i + 1].equals(sample.labels().get(labelPairs[i]))) {
        return false;
      }
    }
    return true;
  }
}
