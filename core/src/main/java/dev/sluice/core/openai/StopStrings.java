package dev.sluice.core.openai;

import java.util.List;

/**
 * The {@code stop} strings of a request, applied to generated text token by token as vLLM applies
 * them: the output ends just before the first stop string that appears (the stop string itself is
 * not shown), and text that may be the start of a stop string is held back until the next token
 * settles it, so a stream never shows text that a stop string later takes back.
 */
public final class StopStrings {

  private final List<String> stops;
  private final int longest;

  public StopStrings(List<String> stops) {
    this.stops = List.copyOf(stops);
    this.longest = this.stops.stream().mapToInt(String::length).max().orElse(0);
    if (this.stops.contains("")) {
      throw new IllegalArgumentException("stop: \"\" (expected: non-empty strings)");
    }
  }

  public boolean isEmpty() {
    return stops.isEmpty();
  }

  /** A fresh pass over one choice's tokens. */
  public Matcher matcher() {
    return new Matcher();
  }

  /** One choice's pass over its tokens, used by one stream stage at a time. */
  public final class Matcher {

    private String held = "";
    private boolean stopped;

    private Matcher() {}

    /**
     * Takes the next token and returns the text that can be shown now, possibly empty; after a
     * stop string, always empty.
     */
    public String accept(String token) {
      if (stopped) {
        return "";
      }
      String text = held.isEmpty() ? token : held + token;
      int stop = firstStop(text);
      if (stop >= 0) {
        stopped = true;
        held = "";
        return text.substring(0, stop);
      }
      int keep = heldBack(text);
      held = text.substring(text.length() - keep);
      return keep == 0 ? text : text.substring(0, text.length() - keep);
    }

    /** Whether a stop string has appeared: the output is complete. */
    public boolean stopped() {
      return stopped;
    }

    /** The text held back when the tokens ran out before a stop string: shown at the end. */
    public String flush() {
      String rest = held;
      held = "";
      return rest;
    }
  }

  /** Where the earliest stop string starts in {@code text}, or -1. */
  private int firstStop(String text) {
    int first = -1;
    for (String stop : stops) {
      int at = text.indexOf(stop);
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    }
    return first;
  }

  /** The length of the longest end of {@code text} that some stop string starts with. */
  private int heldBack(String text) {
    for (int from = Math.max(0, text.length() - longest + 1); from < text.length(); from++) {
      int length = text.length() - from;
      for (String stop : stops) {
        if (stop.length() > length && stop.regionMatches(0, text, from, length)) {
          return length;
        }
      }
    }
    return 0;
  }
}
