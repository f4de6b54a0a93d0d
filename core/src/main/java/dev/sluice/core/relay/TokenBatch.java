package dev.sluice.core.relay;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.List;

/**
 * One element of the relayed path's token stream: the tokens the engine produced since the last
 * element was sent. A replica that generates faster than the ingress reads sends many tokens per
 * message instead of one message each, so Artery's queues and the stream ref's demand window hold
 * messages, not tokens, at any concurrency.
 */
public record TokenBatch(List<String> tokens) implements ClusterMessage {

  /** At most this many tokens per element. */
  public static final int MAX_TOKENS = 64;

  public TokenBatch {
    tokens = List.copyOf(tokens);
  }
}
