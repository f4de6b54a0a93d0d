package dev.sluice.replica.http;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.openai.CompletionRequestParser;
import dev.sluice.core.relay.AnswerChunk;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.replica.engine.Engine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.StreamRefs;
import org.apache.pekko.util.ByteString;

/**
 * The replica's side of the relayed path: the same slots, reservations, validation, engine and
 * answer ({@link CompletionAnswer}: {@code n} choices, stop strings, usage) as its HTTP endpoint,
 * but the request arrives as a {@link Generate} message and the answer's bytes leave through a
 * stream ref in {@link AnswerChunk}s, for the ingress to pass on.
 */
public final class RelayHandler {

  private final String replicaId;
  private final Engine engine;
  private final Slots slots;
  private final Reservations reservations;
  private final CompletionRequestParser parser;
  private final Materializer materializer;
  private final Executor executor;
  private final BooleanSupplier draining;

  RelayHandler(String replicaId, Engine engine, Slots slots, Reservations reservations,
      CompletionRequestParser parser, Materializer materializer, Executor executor,
      BooleanSupplier draining) {
    this.replicaId = replicaId;
    this.engine = engine;
    this.slots = slots;
    this.reservations = reservations;
    this.parser = parser;
    this.materializer = materializer;
    this.executor = executor;
    this.draining = draining;
  }

  public CompletionStage<GenerateReply> generate(Generate generate) {
    if (draining.getAsBoolean()) {
      return refuse(ServeReason.REPLICA_DRAINING, "Replica is draining");
    }
    Slots.Slot slot = generate.slotToken().flatMap(reservations::consume)
        .orElseGet(slots::tryAcquire);
    if (slot == null) {
      return refuse(ServeReason.REPLICA_AT_CAPACITY,
          "Replica at capacity (" + slots.limit() + " ongoing requests)");
    }
    CompletionRequest request;
    try {
      request = parser.parse(generate.kind(), generate.body());
    } catch (ApiError error) {
      slot.release();
      return CompletableFuture.completedFuture(new GenerateReply.Refused(replicaId,
          error.status(), Optional.empty(), error.toJson()));
    }
    CompletionAnswer answer = CompletionAnswer.of(request, generate.requestId(), engine);
    // A stream ref nobody subscribes to fails after its subscription timeout, which ends this
    // source too and frees the slot; nothing is generated before the ingress subscribes.
    var chunks = (request.stream() ? streamed(answer, slot) : whole(answer, slot))
        // No message over the limit: a whole answer can be larger than Artery's largest message.
        .mapConcat(RelayHandler::pieces)
        // Frames the ingress has not asked for yet travel together: one message per batch.
        .batchWeighted(AnswerChunk.MAX_BYTES, bytes -> (long) bytes.size(), bytes -> bytes,
            ByteString::concat)
        .map(bytes -> new AnswerChunk(bytes.toArrayUnsafe()))
        .runWith(StreamRefs.sourceRef(), materializer);
    return CompletableFuture.completedFuture(
        new GenerateReply.Streaming(replicaId, request, chunks));
  }

  /** {@code bytes} cut into pieces of at most {@link AnswerChunk#MAX_BYTES}, without copying. */
  static List<ByteString> pieces(ByteString bytes) {
    if (bytes.size() <= AnswerChunk.MAX_BYTES) {
      return List.of(bytes);
    }
    List<ByteString> pieces = new ArrayList<>(bytes.size() / AnswerChunk.MAX_BYTES + 1);
    for (int from = 0; from < bytes.size(); from += AnswerChunk.MAX_BYTES) {
      pieces.add(bytes.slice(from, Math.min(bytes.size(), from + AnswerChunk.MAX_BYTES)));
    }
    return pieces;
  }

  /** The SSE frames; the slot is held until the stream ends, however it ends. */
  private Source<ByteString, NotUsed> streamed(CompletionAnswer answer, Slots.Slot slot) {
    return answer.stream().watchTermination((notUsed, done) -> {
      done.whenCompleteAsync((d, failure) -> slot.release(), executor);
      return notUsed;
    });
  }

  /**
   * The whole JSON answer as one element once every choice has ended. Once started, the slot is
   * held until generation ends, as on the replica's endpoint, even if the ingress leaves first.
   */
  private Source<ByteString, NotUsed> whole(CompletionAnswer answer, Slots.Slot slot) {
    AtomicBoolean started = new AtomicBoolean();
    return Source.lazyCompletionStage(() -> {
      started.set(true);
      return answer.whole(materializer)
          .whenCompleteAsync((body, failure) -> slot.release(), executor)
          .thenApplyAsync(ByteString::fromString, Runnable::run);
    }).watchTermination((future, done) -> {
      done.whenCompleteAsync((d, failure) -> {
        if (!started.get()) {
          slot.release();
        }
      }, executor);
      return NotUsed.getInstance();
    });
  }

  private CompletionStage<GenerateReply> refuse(ServeReason reason, String message) {
    return CompletableFuture.completedFuture(new GenerateReply.Refused(replicaId, 503,
        Optional.of(reason.value()),
        new ApiError(ApiError.Code.OVERLOADED, message, null).toJson()));
  }
}
