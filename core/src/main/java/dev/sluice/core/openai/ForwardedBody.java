package dev.sluice.core.openai;

import dev.sluice.core.serialization.ClusterMessage;
import java.util.Arrays;

/**
 * The part of a client's request body forwarded to the router for body-aware policies: at most
 * the forward limit, with the total length when known ({@code -1} = unknown). A cut body is
 * {@link #truncated()}; it then has no routing key, by design.
 */
public record ForwardedBody(byte[] bytes, long totalLength) implements ClusterMessage {

  public ForwardedBody {
    bytes = bytes.clone();
  }

  public static ForwardedBody whole(byte[] bytes) {
    return new ForwardedBody(bytes, bytes.length);
  }

  /** A whole body as the router gets it: itself up to {@code limit} bytes, else cut there. */
  public static ForwardedBody cut(byte[] body, int limit) {
    return body.length <= limit ? whole(body)
        : new ForwardedBody(java.util.Arrays.copyOf(body, limit), body.length);
  }

  public boolean truncated() {
    return totalLength != bytes.length;
  }

  /** The header value {@code <sent>/<total>} ({@code *} for an unknown total). */
  public String truncationHeader() {
    return bytes.length + "/" + (totalLength < 0 ? "*" : String.valueOf(totalLength));
  }

  /** Model and prompt, unless the body is cut or not an OpenAI request. */
  public RoutingKeys routingKeys() {
    return truncated() ? RoutingKeys.NONE : RoutingKeys.parse(bytes);
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ForwardedBody that && totalLength == that.totalLength
        && Arrays.equals(bytes, that.bytes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bytes) + Long.hashCode(totalLength);
  }

  @Override
  public String toString() {
    return "ForwardedBody[" + truncationHeader() + "]";
  }

}
