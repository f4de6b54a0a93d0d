package dev.sluice.core.relay;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Arrays;
import org.apache.pekko.util.ByteString;

/**
 * One element of the relayed path's answer stream: the answer's bytes produced since the last
 * element was sent, framed by the replica exactly as its own endpoint frames them (SSE frames of
 * every choice, or the whole JSON answer). A replica that produces faster than the ingress reads
 * sends many frames per message instead of one message each, so Artery's queues and the stream
 * ref's demand window hold messages, not tokens, at any concurrency.
 */
public record AnswerChunk(byte[] bytes) implements ClusterMessage {

  /**
   * At most this many bytes per element: frames are batched up to it and a larger piece (a whole
   * answer) is cut, so no message nears Artery's largest (256 KiB by default).
   */
  public static final int MAX_BYTES = 16 * 1024;

  public AnswerChunk {
    bytes = bytes.clone();
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The bytes to send on, without a copy (this chunk never changes them). */
  public ByteString asByteString() {
    return ByteString.fromArrayUnsafe(bytes);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof AnswerChunk that && Arrays.equals(bytes, that.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "AnswerChunk[" + bytes.length + " bytes]";
  }
}
