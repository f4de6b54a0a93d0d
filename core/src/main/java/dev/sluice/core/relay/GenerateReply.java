package dev.sluice.core.relay;

import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.serialization.ClusterMessage;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.stream.SourceRef;

/** The replica's answer to {@link Generate}. */
public sealed interface GenerateReply extends ClusterMessage {

  /**
   * Generation started: the tokens come through {@code tokens}, in batches of those generated
   * since the last element was sent; the ingress frames each token for the client.
   */
  record Streaming(String replicaId, CompletionRequest request, SourceRef<TokenBatch> tokens)
      implements GenerateReply {
    public Streaming {
      Objects.requireNonNull(replicaId, "replicaId");
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(tokens, "tokens");
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
