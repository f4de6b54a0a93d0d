package dev.sluice.bench;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Turns a {@link Workload} into concrete requests, deterministically from its seed: request
 * {@code i} is always the same bytes. Prompt text is plain lowercase words (4 characters per
 * token, as the simulated engine counts), so no JSON escaping is needed.
 */
public final class RequestPlan {

  private static final String[] WORDS = {"alpha", "bravo", "cedar", "delta", "ember", "frost",
      "grove", "harbor", "iris", "jolt", "kelp", "lumen", "moss", "north", "opal", "pine"};

  private final Workload workload;
  private final String[] prefixes;

  /** One request: the body, and the session it belongs to (multi-turn). */
  public record Planned(byte[] body, Optional<String> session) {}

  public RequestPlan(Workload workload) {
    this.workload = workload;
    this.prefixes = new String[Math.max(1, workload.groups())];
    for (int g = 0; g < prefixes.length; g++) {
      prefixes[g] = text(new SplittableRandom(workload.seed() * 31 + g),
          workload.prefixChars());
    }
  }

  /** Request {@code index} of a flat workload. */
  public Planned request(long index) {
    SplittableRandom random = new SplittableRandom(workload.seed() ^ (index * 0x9E3779B97F4A7C15L));
    Distribution prompt = workload.promptTokens();
    Distribution output = workload.outputTokens();
    if (workload.preset().equals("mixed") && random.nextBoolean()) {
      prompt = Distribution.fixed(32);
      output = Distribution.fixed(512);
    } else if (workload.preset().equals("mixed")) {
      prompt = Distribution.fixed(2048);
      output = Distribution.fixed(32);
    }
    String user = text(random, prompt.sample(random) * 4);
    String system = workload.preset().equals("shared-prefix")
        ? prefixes[(int) (index % prefixes.length)] : null;
    return new Planned(body(system, new String[] {user}, output.sample(random)),
        Optional.empty());
  }

  /** Turn {@code turn} of conversation {@code session}: the history so far, then a new question. */
  public Planned turn(int session, int turn) {
    SplittableRandom random = new SplittableRandom(workload.seed() * 1_000_003L + session);
    String[] messages = new String[2 * turn + 1];
    for (int i = 0; i < messages.length; i++) {
      messages[i] = text(random, workload.promptTokens().sample(random) * 4);
    }
    return new Planned(body(null, messages, workload.outputTokens().sample(random)),
        Optional.of("bench-session-" + session));
  }

  private byte[] body(String system, String[] turns, int maxTokens) {
    StringBuilder json = new StringBuilder(256);
    json.append('{');
    workload.model().ifPresent(m -> json.append("\"model\":\"").append(m).append("\","));
    json.append("\"messages\":[");
    boolean first = true;
    if (system != null) {
      json.append("{\"role\":\"system\",\"content\":\"").append(system).append("\"}");
      first = false;
    }
    for (int i = 0; i < turns.length; i++) {
      json.append(first ? "" : ",").append("{\"role\":\"")
          .append(i % 2 == 0 ? "user" : "assistant").append("\",\"content\":\"")
          .append(turns[i]).append("\"}");
      first = false;
    }
    json.append("],\"max_tokens\":").append(maxTokens)
        .append(",\"stream\":").append(workload.stream()).append('}');
    return json.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static String text(SplittableRandom random, int chars) {
    StringBuilder text = new StringBuilder(chars + 8);
    while (text.length() < chars) {
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return chars <= 0 ? "" : text.substring(0, chars);
  }
}
