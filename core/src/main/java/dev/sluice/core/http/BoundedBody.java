package dev.sluice.core.http;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import scala.jdk.javaapi.DurationConverters;

/**
 * A request body read whole, keeping at most {@code limit} bytes. A longer body is still read to
 * its end and dropped, so that the 413 answered after it reaches a client that is still sending:
 * answering before the end closes the connection with the client's bytes unread, and the client
 * may see it reset before it reads the answer. How far a body is read is bounded by the server
 * (Pekko's {@code max-content-length}); a body it cuts off, or one whose Content-Length already
 * says it is too large, is too large all the same, never a failure.
 */
public final class BoundedBody {

  /** How many times its limit a body too large is read (and dropped) to its end. */
  private static final long READ_TO_END_FACTOR = 4;

  private final long limit;
  private final OptionalLong declared;
  private ByteString kept = ByteString.emptyByteString();
  private long read;

  private BoundedBody(long limit, OptionalLong declared) {
    this.limit = limit;
    this.declared = declared;
  }

  /**
   * How much of a body a server whose limit is {@code limit} should let {@link #read} see
   * (Pekko's {@code max-content-length}): four times the limit, so that a body somewhat too large
   * is read to its end and its 413 reaches the client; Pekko cuts off a longer one.
   */
  public static long serverCap(long limit) {
    return limit > Long.MAX_VALUE / READ_TO_END_FACTOR ? Long.MAX_VALUE
        : limit * READ_TO_END_FACTOR;
  }

  /**
   * The body of a request's {@code entity}: at once when Pekko already holds it whole (a body
   * that came with its head), else read as {@link #read(Source, OptionalLong, long, Duration,
   * Materializer)} does.
   */
  public static CompletionStage<BoundedBody> read(HttpEntity entity, long limit,
      Duration timeout, Materializer materializer) {
    if (entity instanceof HttpEntity.Strict strict) {
      BoundedBody body = new BoundedBody(limit, entity.getContentLengthOption());
      body.add(strict.getData());
      return CompletableFuture.completedFuture(body);
    }
    return read(entity.getDataBytes(), entity.getContentLengthOption(), limit, timeout,
        materializer);
  }

  /**
   * The body of {@code bytes} (with the Content-Length {@code declared}, if any); fails if it
   * stops, or stalls for {@code timeout} ({@link java.util.concurrent.TimeoutException}), before
   * it is known to be too large.
   */
  public static CompletionStage<BoundedBody> read(Source<ByteString, ?> bytes,
      OptionalLong declared, long limit, Duration timeout, Materializer materializer) {
    BoundedBody body = new BoundedBody(limit, declared);
    CompletableFuture<BoundedBody> result = new CompletableFuture<>();
    // Not completionTimeout, nor any other way of cancelling the read: Pekko HTTP aborts the
    // connection of a request entity cancelled before its end, and the client would see a reset
    // instead of the 408. The read goes on until the server closes the connection after the
    // answer (which should say Connection: close).
    Cancellable timer = materializer.scheduleOnce(DurationConverters.toScala(timeout),
        () -> result.completeExceptionally(new TimeoutException(
            "The request body did not arrive within " + timeout.toSeconds() + " s")));
    // With an executor: Scala's future adapter runs a plain whenComplete on a thread of the
    // JDK's async pool, which on 2 cores is a new thread each time.
    bytes.runWith(Sink.foreach(body::add), materializer).whenCompleteAsync((done, failure) -> {
      timer.cancel();
      if (failure == null || body.tooLarge()) {
        result.complete(body);
      } else {
        result.completeExceptionally(failure);
      }
    }, Runnable::run);
    return result;
  }

  private void add(ByteString bytes) {
    read += bytes.size();
    if (kept.size() < limit) {
      kept = kept.concat(bytes.take((int) Math.min(Integer.MAX_VALUE, limit - kept.size())));
    }
  }

  /** Longer than the limit, by its Content-Length or by what arrived. */
  public boolean tooLarge() {
    return read > limit || declared.orElse(0) > limit;
  }

  /** The client's 413: its size when its Content-Length gave it, the limit's otherwise. */
  public ApiError tooLargeError() {
    return new ApiError(ApiError.Code.PAYLOAD_TOO_LARGE, declared.isPresent()
        ? "The request body is " + declared.getAsLong() + " bytes; the limit is " + limit
        : "The request body is over the limit of " + limit + " bytes", null);
  }

  /** The body (all of it unless {@link #tooLarge()}). */
  public ByteString bytes() {
    return kept;
  }
}
