package dev.sluice.replica.http;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.openai.AnswerPiece;
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
import java.util.function.BooleanSupplier;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * The replica's side of the relayed path: the same slots, reservations, validation, engine and
 * answer ({@link CompletionAnswer}: {@code n} choices, stop strings, usage) as its HTTP endpoint,
 * but the request arrives as a {@link Generate} message and the answer's pieces leave through a
 * stream ref in {@link AnswerChunk}s, for the ingress to frame (a token's text crosses, not its
 * SSE frame).
 */
public final class RelayHandler {

  private final String replicaId;
  private final Engine engine;
  private final Slots slots;
  private final Reservations reservations;
  private final CompletionRequestParser parser;
  private final Materializer materializer;
  private final BooleanSupplier draining;

  RelayHandler(String replicaId, Engine engine, Slots slots, Reservations reservations,
      CompletionRequestParser parser, Materializer materializer, BooleanSupplier draining) {
    this.replicaId = replicaId;
    this.engine = engine;
    this.slots = slots;
    this.reservations = reservations;
    this.parser = parser;
    this.materializer = materializer;
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
    // Generation starts now; the stream ref holds what it cannot send yet. One nobody subscribes
    // to fails after its subscription timeout, which ends this source too and frees the slot.
    // The slot is free before the stream's end leaves for the ingress (see StreamEnd).
    var chunks = CompletionAnswer.of(request, generate.requestId(), engine).pieces()
        .via(new StreamEnd<>(() -> { }, slot::release))
        // Pieces the ingress has not asked for yet travel together: one message per batch.
        .batchWeighted(AnswerChunk.MAX_TEXT, piece -> (long) piece.text().length(),
            RelayHandler::firstOf, RelayHandler::add)
        .map(AnswerChunk::new)
        .runWith(StreamRefs.sourceRef(), materializer);
    return CompletableFuture.completedFuture(
        new GenerateReply.Streaming(replicaId, request, chunks));
  }

  private static List<AnswerPiece> firstOf(AnswerPiece piece) {
    List<AnswerPiece> batch = new ArrayList<>();
    batch.add(piece);
    return batch;
  }

  private static List<AnswerPiece> add(List<AnswerPiece> batch, AnswerPiece piece) {
    batch.add(piece);
    return batch;
  }

  private CompletionStage<GenerateReply> refuse(ServeReason reason, String message) {
    return CompletableFuture.completedFuture(new GenerateReply.Refused(replicaId, 503,
        Optional.of(reason.value()),
        new ApiError(ApiError.Code.OVERLOADED, message, null).toJson()));
  }
}
