package dev.sluice.core.openai;

import dev.sluice.core.http.JsonText;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.util.ByteString;

/**
 * OpenAI response bodies (shared by the replica endpoint and the ingress's relayed path): SSE
 * frames {@code data: <json>\n\n} for streams and whole JSON objects otherwise. Built by hand on
 * the hot path (one small string per token, no object mapper). {@link AnswerFramer} puts them
 * together for one answer.
 */
public final class SseFrames {

  public static final ByteString DONE = ByteString.fromString("data: [DONE]\n\n");

  /**
   * One choice of a whole answer.
   *
   * @param completionTokens the tokens generated for it (a stop string's last one included)
   */
  public record Choice(String text, String finishReason, int completionTokens) {
    public Choice {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(finishReason, "finishReason");
    }
  }

  private final CompletionRequest request;
  private final boolean chat;
  /** {@code data: } and the JSON up to {@code "choices":}, the same for every frame. */
  private final String framePrefix;

  public SseFrames(CompletionRequest request, String id, long created) {
    this.request = request;
    this.chat = request.kind() == CompletionRequest.Kind.CHAT;
    StringBuilder p = new StringBuilder(128);
    p.append("{\"id\":");
    JsonText.appendQuoted(p, id);
    p.append(",\"object\":\"")
        .append(chat ? "chat.completion.chunk" : "text_completion")
        .append("\",\"created\":").append(created).append(",\"model\":");
    JsonText.appendQuoted(p, request.model());
    p.append(",\"choices\":");
    this.framePrefix = "data: " + p;
  }

  /** Choice {@code index}'s first chat frame: the assistant role with empty content. */
  public ByteString roleFrame(int index) {
    return frame("[{\"index\":" + index + ",\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
        + "\"logprobs\":null,\"finish_reason\":null}]}");
  }

  /** Choice {@code index}'s next text, built in a single buffer (this runs once per token). */
  public ByteString tokenFrame(int index, String token) {
    StringBuilder frame = new StringBuilder(framePrefix.length() + token.length() + 64);
    frame.append(framePrefix).append("[{\"index\":").append(index);
    if (chat) {
      frame.append(",\"delta\":{\"content\":");
      JsonText.appendQuoted(frame, token);
      frame.append("},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    } else {
      frame.append(",\"text\":");
      JsonText.appendQuoted(frame, token);
      frame.append(",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    }
    return ByteString.fromString(frame.toString());
  }

  /** Choice {@code index}'s last frame: no text, why it ended. */
  public ByteString finishFrame(int index, String reason) {
    return frame("[{\"index\":" + index + (chat ? ",\"delta\":{}" : ",\"text\":\"\"")
        + ",\"logprobs\":null,\"finish_reason\":" + JsonText.quote(reason) + "}]}");
  }

  /** The usage chunk: no choices, the prompt and {@code completionTokens} of all choices. */
  public ByteString usageFrame(int completionTokens) {
    return frame("[]," + usage(completionTokens).substring(1));
  }

  private ByteString frame(CharSequence choicesAndRest) {
    return ByteString.fromString(framePrefix + choicesAndRest + "\n\n");
  }

  /** The non-streaming answer: the choices in index order, usage summed over them. */
  public String fullResponse(String id, long created, List<Choice> choices) {
    int length = 0;
    for (Choice choice : choices) {
      length += choice.text().length();
    }
    StringBuilder json = new StringBuilder(256 + 96 * choices.size() + length);
    json.append("{\"id\":");
    JsonText.appendQuoted(json, id);
    json.append(",\"object\":\"").append(chat ? "chat.completion" : "text_completion")
        .append("\",\"created\":").append(created).append(",\"model\":");
    JsonText.appendQuoted(json, request.model());
    json.append(",\"choices\":[");
    int completionTokens = 0;
    for (int i = 0; i < choices.size(); i++) {
      Choice choice = choices.get(i);
      completionTokens += choice.completionTokens();
      json.append(i == 0 ? "" : ",").append("{\"index\":").append(i).append(',');
      if (chat) {
        json.append("\"message\":{\"role\":\"assistant\",\"content\":");
        JsonText.appendQuoted(json, choice.text());
        json.append('}');
      } else {
        json.append("\"text\":");
        JsonText.appendQuoted(json, choice.text());
      }
      json.append(",\"logprobs\":null,\"finish_reason\":");
      JsonText.appendQuoted(json, choice.finishReason());
      json.append('}');
    }
    json.append(']').append(usage(completionTokens));
    return json.toString();
  }

  /** {@code ,"usage":{...}}} — a tail shared by the usage frame and the full response. */
  private String usage(int completionTokens) {
    int prompt = request.promptTokens();
    return ",\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":"
        + completionTokens + ",\"total_tokens\":" + (prompt + completionTokens) + "}}";
  }
}
