package dev.sluice.core.openai;

import dev.sluice.core.http.JsonText;
import org.apache.pekko.util.ByteString;

/**
 * OpenAI response bodies (shared by the replica endpoint and the ingress's relayed path): SSE frames {@code data: <json>\n\n} for streams and whole JSON objects
 * otherwise. Built by hand on the hot path (one small string per token, no object mapper).
 */
public final class SseFrames {

  public static final ByteString DONE = ByteString.fromString("data: [DONE]\n\n");

  private final CompletionRequest request;
  /** {@code data: } and the JSON up to {@code "choices":}, the same for every frame. */
  private final String framePrefix;

  public SseFrames(CompletionRequest request, String id, long created) {
    this.request = request;
    StringBuilder p = new StringBuilder(128);
    p.append("{\"id\":");
    JsonText.appendQuoted(p, id);
    p.append(",\"object\":\"")
        .append(request.kind() == CompletionRequest.Kind.CHAT
            ? "chat.completion.chunk" : "text_completion")
        .append("\",\"created\":").append(created).append(",\"model\":");
    JsonText.appendQuoted(p, request.model());
    p.append(",\"choices\":");
    this.framePrefix = "data: " + p;
  }

  /** The first chat frame: the assistant role with empty content. Null for completions. */
  public ByteString roleFrame() {
    return frame("[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
        + "\"logprobs\":null,\"finish_reason\":null}]}");
  }

  /** One token's frame, built in a single buffer (this runs once per token). */
  public ByteString tokenFrame(String token) {
    StringBuilder frame = new StringBuilder(framePrefix.length() + token.length() + 64);
    frame.append(framePrefix);
    if (request.kind() == CompletionRequest.Kind.CHAT) {
      frame.append("[{\"index\":0,\"delta\":{\"content\":");
      JsonText.appendQuoted(frame, token);
      frame.append("},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    } else {
      frame.append("[{\"index\":0,\"text\":");
      JsonText.appendQuoted(frame, token);
      frame.append(",\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    }
    return ByteString.fromString(frame.toString());
  }

  public ByteString finishFrame() {
    String reason = request.finishReason();
    return frame(request.kind() == CompletionRequest.Kind.CHAT
        ? "[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"" + reason + "\"}]}"
        : "[{\"index\":0,\"text\":\"\",\"logprobs\":null,\"finish_reason\":\"" + reason + "\"}]}");
  }

  public ByteString usageFrame(int completionTokens) {
    return frame("[]," + usage(completionTokens).substring(1));
  }

  private ByteString frame(CharSequence choicesAndRest) {
    return ByteString.fromString(framePrefix + choicesAndRest + "\n\n");
  }

  /** The non-streaming answer. */
  public String fullResponse(String id, long created, String text, int completionTokens) {
    StringBuilder json = new StringBuilder(256 + text.length());
    json.append("{\"id\":");
    JsonText.appendQuoted(json, id);
    boolean chat = request.kind() == CompletionRequest.Kind.CHAT;
    json.append(",\"object\":\"").append(chat ? "chat.completion" : "text_completion")
        .append("\",\"created\":").append(created).append(",\"model\":");
    JsonText.appendQuoted(json, request.model());
    json.append(",\"choices\":[{\"index\":0,");
    if (chat) {
      json.append("\"message\":{\"role\":\"assistant\",\"content\":");
      JsonText.appendQuoted(json, text);
      json.append('}');
    } else {
      json.append("\"text\":");
      JsonText.appendQuoted(json, text);
    }
    json.append(",\"logprobs\":null,\"finish_reason\":\"").append(request.finishReason())
        .append("\"}],").append(usage(completionTokens).substring(1));
    return json.toString();
  }

  /** {@code ,"usage":{...}}} — a tail shared by the usage frame and the full response. */
  private String usage(int completionTokens) {
    int prompt = request.promptTokens();
    return ",\"usage\":{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":"
        + completionTokens + ",\"total_tokens\":" + (prompt + completionTokens) + "}}";
  }
}
