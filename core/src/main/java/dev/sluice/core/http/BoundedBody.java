package dev.sluice.core.http;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import scala.jdk.javaapi.DurationConverters;

/**
 * A request body read whole, keeping at most {@code limit} bytes. A longer body is still read and
 * dropped, for up to {@link #LINGER} once it is known to be too large, so that the 413 answered
 * after it reaches a client that is still sending: answering first closes the connection with the
 * client's bytes unread, and the client sees it reset before it reads the answer (what the
 * splice does after its answer, and nginx's lingering close). The server's own size limit
 * (Pekko's {@code max-content-length}) is lifted for that read: Pekko fails a body over it and
 * resets the connection, answer or not. A client that waits for {@code 100 Continue} before
 * sending a body whose Content-Length is too large is answered at once and sends nothing.
 */
public final class BoundedBody {

  /**
   * How long a body known to be too large is still read and dropped before the 413: a client
   * that sends more than it can in that time may miss the answer.
   */
  static final Duration LINGER = Duration.ofSeconds(2);
  /** How many times its limit a server lets a body be read by anything but this. */
  private static final long READ_TO_END_FACTOR = 4;

  private final long limit;
  private final OptionalLong declared;
  private ByteString kept = ByteString.emptyByteString();
  private volatile long read;

  private BoundedBody(long limit, OptionalLong declared) {
    this.limit = limit;
    this.declared = declared;
  }

  /**
   * The size limit for a server whose bodies are read here with {@code limit}: four times the
   * limit (what other readers of a body, and HAProxy in front of it, may take; this class lifts
   * it).
   */
  public static long serverCap(long limit) {
    return limit > Long.MAX_VALUE / READ_TO_END_FACTOR ? Long.MAX_VALUE
        : limit * READ_TO_END_FACTOR;
  }

  /**
   * The body of {@code request}: too large at once when its Content-Length says so and the
   * client waits for {@code 100 Continue} before sending it; else {@link #read(HttpEntity, long,
   * Duration, Materializer)}.
   */
  public static CompletionStage<BoundedBody> read(HttpRequest request, long limit,
      Duration timeout, Materializer materializer) {
    HttpEntity entity = request.entity();
    OptionalLong declared = entity.getContentLengthOption();
    if (declared.isPresent() && declared.getAsLong() > limit && expectsContinue(request)) {
      return CompletableFuture.completedFuture(new BoundedBody(limit, declared));
    }
    return read(entity, limit, timeout, materializer);
  }

  private static boolean expectsContinue(HttpRequest request) {
    for (HttpHeader header : request.getHeaders()) {
      if (header.is("expect") && header.value().trim().equalsIgnoreCase("100-continue")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The body of {@code entity}: at once when Pekko already holds it whole (a body that came with
   * its head), else read as {@link #read(Source, OptionalLong, long, Duration, Materializer)}
   * does, past the server's size limit.
   */
  public static CompletionStage<BoundedBody> read(HttpEntity entity, long limit,
      Duration timeout, Materializer materializer) {
    if (entity instanceof HttpEntity.Strict strict) {
      BoundedBody body = new BoundedBody(limit, entity.getContentLengthOption());
      body.add(strict.getData());
      return CompletableFuture.completedFuture(body);
    }
    return read(entity.withoutSizeLimit().getDataBytes(), entity.getContentLengthOption(), limit,
        timeout, materializer);
  }

  /**
   * The body of {@code bytes} (with the Content-Length {@code declared}, if any); fails if it
   * stops, or stalls for {@code timeout} ({@link java.util.concurrent.TimeoutException}), before
   * it is known to be too large. One too large is read on for up to {@link #LINGER} (never past
   * {@code timeout}), then taken as it is.
   */
  public static CompletionStage<BoundedBody> read(Source<ByteString, ?> bytes,
      OptionalLong declared, long limit, Duration timeout, Materializer materializer) {
    BoundedBody body = new BoundedBody(limit, declared);
    CompletableFuture<BoundedBody> result = new CompletableFuture<>();
    // Not completionTimeout, nor any other way of cancelling the read: Pekko HTTP aborts the
    // connection of a request entity cancelled before its end, and the client would see a reset
    // instead of the 408 or 413. The read goes on until the server closes the connection after
    // the answer (which should say Connection: close).
    Cancellable timer = materializer.scheduleOnce(DurationConverters.toScala(timeout), () -> {
      if (body.tooLarge()) {
        result.complete(body);
      } else {
        result.completeExceptionally(new TimeoutException(
            "The request body did not arrive within " + timeout.toSeconds() + " s"));
      }
    });
    result.whenComplete((done, failure) -> timer.cancel());
    AtomicBoolean lingering = new AtomicBoolean();
    Runnable linger = () -> {
      if (lingering.compareAndSet(false, true)) {
        materializer.scheduleOnce(DurationConverters.toScala(LINGER), () -> result.complete(body));
      }
    };
    if (body.tooLarge()) {
      linger.run();
    }
    // With an executor: Scala's future adapter runs a plain whenComplete on a thread of the
    // JDK's async pool, which on 2 cores is a new thread each time.
    bytes.runWith(Sink.foreach(piece -> {
      body.add(piece);
      if (body.tooLarge()) {
        linger.run();
      }
    }), materializer).whenCompleteAsync((done, failure) -> {
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
