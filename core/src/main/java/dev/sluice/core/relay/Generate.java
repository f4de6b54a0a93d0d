package dev.sluice.core.relay;

import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The relayed path (the control group of direct streaming): the ingress sends the client's
 * request to the replica as a message; the replica answers with a {@link GenerateReply}, tokens
 * travelling back through a stream ref.
 *
 * @param body the client's JSON body
 * @param slotToken a slot reserved for this request by the router (choose/dispatch)
 */
public record Generate(String requestId, CompletionRequest.Kind kind, byte[] body,
    Optional<String> slotToken, ActorRef<GenerateReply> replyTo) implements ClusterMessage {

  public Generate {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(kind, "kind");
    body = body.clone();
    Objects.requireNonNull(slotToken, "slotToken");
    Objects.requireNonNull(replyTo, "replyTo");
  }

  @Override
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Generate that && requestId.equals(that.requestId)
        && kind == that.kind && Arrays.equals(body, that.body)
        && slotToken.equals(that.slotToken) && replyTo.equals(that.replyTo);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requestId, kind, Arrays.hashCode(body), slotToken, replyTo);
  }

  @Override
  public String toString() {
    return "Generate[" + requestId + ", " + kind + ", " + body.length + " bytes]";
  }
}
