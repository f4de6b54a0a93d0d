package dev.sluice.core.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A parser of the Prometheus text exposition format 0.0.4, as engines such as vLLM serve it on
 * {@code /metrics}: one sample per line, {@code name{label="value",...} value [timestamp]};
 * {@code # HELP}, {@code # TYPE}, other comments and blank lines are skipped. A malformed line
 * is skipped and counted, never fatal: a scrape must not fail because of one odd line.
 *
 * <pre>
 * PrometheusText.Scrape scrape = PrometheusText.parse(body);
 * double running = scrape.sum("vllm:num_requests_running").orElse(0);
 * </pre>
 */
public final class PrometheusText {

  private PrometheusText() {}

  /**
   * One sample.
   *
   * @param name the metric name as written (with {@code _total}, {@code _bucket} etc.)
   * @param labels its labels, unescaped
   * @param value NaN and the infinities included
   */
  public record Sample(String name, Map<String, String> labels, double value) {
    public Sample {
      Objects.requireNonNull(name, "name");
      labels = Map.copyOf(Objects.requireNonNull(labels, "labels"));
    }
  }

  /**
   * The samples of one exposition, in order, and how many lines were skipped as malformed.
   */
  public record Scrape(List<Sample> samples, int malformedLines) {
    public Scrape {
      samples = List.copyOf(Objects.requireNonNull(samples, "samples"));
    }

    /** Every sample named {@code name}, in order. */
    public List<Sample> samples(String name) {
      Objects.requireNonNull(name, "name");
      return samples.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** The sum of {@code name} over all its label sets; empty if there is no such sample. */
    public OptionalDouble sum(String name) {
      List<Sample> matching = samples(name);
      return matching.isEmpty() ? OptionalDouble.empty()
          : OptionalDouble.of(matching.stream().mapToDouble(Sample::value).sum());
    }

    /**
     * The largest value of {@code name} over its label sets (for ratios such as a cache usage,
     * which do not add up); empty if there is no such sample.
     */
    public OptionalDouble max(String name) {
      return samples(name).stream().mapToDouble(Sample::value).max();
    }
  }

  /** Parses a whole exposition; never fails on content ({@link Scrape#malformedLines}). */
  public static Scrape parse(String text) {
    Objects.requireNonNull(text, "text");
    List<Sample> samples = new ArrayList<>();
    int malformed = 0;
    int start = 0;
    while (start <= text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      Sample sample = line(text, start, end);
      if (sample == MALFORMED) {
        malformed++;
      } else if (sample != null) {
        samples.add(sample);
      }
      start = end + 1;
    }
    return new Scrape(samples, malformed);
  }

  /** Marks a malformed line; null marks a line without a sample (blank, comment). */
  private static final Sample MALFORMED = new Sample("", Map.of(), Double.NaN);

  /** The sample of {@code text[start, end)}, null, or {@link #MALFORMED}. */
  private static Sample line(String text, int start, int end) {
    Cursor cursor = new Cursor(text, start, end);
    cursor.skipBlanks();
    if (cursor.atEnd() || cursor.peek() == '#') {
      return null;
    }
    try {
      String name = cursor.name(true);
      cursor.skipBlanks();
      Map<String, String> labels = Map.of();
      if (!cursor.atEnd() && cursor.peek() == '{') {
        labels = labels(cursor);
        cursor.skipBlanks();
      }
      double value = value(cursor.token());
      cursor.skipBlanks();
      if (!cursor.atEnd()) {
        timestamp(cursor.token());
        cursor.skipBlanks();
      }
      if (!cursor.atEnd()) {
        throw new Malformed();
      }
      return new Sample(name, labels, value);
    } catch (Malformed e) {
      return MALFORMED;
    }
  }

  private static Map<String, String> labels(Cursor cursor) {
    cursor.expect('{');
    Map<String, String> labels = new LinkedHashMap<>();
    cursor.skipBlanks();
    while (cursor.peek() != '}') {
      String label = cursor.name(false);
      cursor.skipBlanks();
      cursor.expect('=');
      cursor.skipBlanks();
      if (labels.put(label, cursor.quoted()) != null) {
        throw new Malformed();
      }
      cursor.skipBlanks();
      if (cursor.peek() == ',') {
        cursor.expect(',');
        cursor.skipBlanks();
      } else if (cursor.peek() != '}') {
        throw new Malformed();
      }
    }
    cursor.expect('}');
    return labels;
  }

  /** Go's ParseFloat as Prometheus writes it; no Java-only forms (hex, a 'd' suffix). */
  private static double value(String token) {
    Double special = switch (token.toLowerCase(Locale.ROOT)) {
      case "nan" -> Double.NaN;
      case "+inf", "inf", "+infinity", "infinity" -> Double.POSITIVE_INFINITY;
      case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
      default -> null;
    };
    if (special != null) {
      return special;
    }
    boolean digit = false;
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c >= '0' && c <= '9') {
        digit = true;
      } else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
        throw new Malformed();
      }
    }
    if (!digit) {
      throw new Malformed();
    }
    try {
      return Double.parseDouble(token);
    } catch (NumberFormatException e) {
      throw new Malformed();
    }
  }

  /** Milliseconds since the epoch, an int64; read only to tell a line apart from garbage. */
  private static void timestamp(String token) {
    try {
      Long.parseLong(token);
    } catch (NumberFormatException e) {
      throw new Malformed();
    }
  }

  /** Thrown inside the parser for a malformed line; caught per line, never escapes. */
  private static final class Malformed extends RuntimeException {
    Malformed() {
      super(null, null, false, false);
    }
  }

  /** A position in one line. */
  private static final class Cursor {
    private final String text;
    private final int end;
    private int pos;

    Cursor(String text, int start, int end) {
      this.text = text;
      this.pos = start;
      // Tolerate CRLF line ends.
      this.end = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
    }

    boolean atEnd() {
      return pos >= end;
    }

    char peek() {
      if (atEnd()) {
        throw new Malformed();
      }
      return text.charAt(pos);
    }

    void expect(char c) {
      if (peek() != c) {
        throw new Malformed();
      }
      pos++;
    }

    void skipBlanks() {
      while (pos < end && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
        pos++;
      }
    }

    /** A metric name ({@code [a-zA-Z_:][a-zA-Z0-9_:]*}) or, without colons, a label name. */
    String name(boolean colons) {
      int from = pos;
      while (pos < end && nameChar(text.charAt(pos), pos == from, colons)) {
        pos++;
      }
      if (pos == from) {
        throw new Malformed();
      }
      return text.substring(from, pos);
    }

    private static boolean nameChar(char c, boolean first, boolean colons) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
          || (colons && c == ':') || (!first && c >= '0' && c <= '9');
    }

    /** A double-quoted label value with the escapes \\, \" and \n. */
    String quoted() {
      expect('"');
      StringBuilder value = new StringBuilder();
      while (true) {
        char c = peek();
        pos++;
        if (c == '"') {
          return value.toString();
        }
        if (c == '\\') {
          char escaped = peek();
          pos++;
          switch (escaped) {
            case '\\' -> value.append('\\');
            case '"' -> value.append('"');
            case 'n' -> value.append('\n');
            default -> throw new Malformed();
          }
        } else {
          value.append(c);
        }
      }
    }

    /** The characters up to the next blank or the line's end. */
    String token() {
      int from = pos;
      while (pos < end && text.charAt(pos) != ' ' && text.charAt(pos) != '\t') {
        pos++;
      }
      if (pos == from) {
        throw new Malformed();
      }
      return text.substring(from, pos);
    }
  }
}
