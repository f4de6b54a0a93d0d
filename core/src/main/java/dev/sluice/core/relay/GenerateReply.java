package dev.sluice.core.relay;

import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.stream.SourceRef;

/** The replica's answer to {@link Generate}. */
public sealed interface GenerateReply extends ClusterMessage {

  /**
   * Generation started: the answer's pieces (each choice's text, then its end) come through
   * {@code answer}; the ingress frames them for {@code request} as the replica's endpoint would
   * (SSE when {@code request.stream()}, else the whole JSON answer).
   */
  record Streaming(String replicaId, CompletionRequest request, SourceRef<AnswerChunk> answer)
      implements GenerateReply {
    public Streaming {
      Objects.requireNonNull(replicaId, "replicaId");
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(answer, "answer");
    }
  }

  /**
   * The replica refused: the HTTP answer it would have given on its own endpoint (OpenAI error
   * JSON, and the serve reason for a refusal at capacity or while draining).
   */
  record Refused(String replicaId, int status, Optional<String> serveReason, String errorJson)
      implements GenerateReply {
    public Refused {
      Objects.requireNonNull(replicaId, "replicaId");
      Objects.requireNonNull(serveReason, "serveReason");
      Objects.requireNonNull(errorJson, "errorJson");
    }
  }
}
