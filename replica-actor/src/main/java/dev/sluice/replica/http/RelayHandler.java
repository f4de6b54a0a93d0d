package dev.sluice.replica.http;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.JsonText;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.openai.CompletionRequestParser;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.core.relay.TokenBatch;
import dev.sluice.replica.engine.Engine;
import dev.sluice.replica.engine.GenerationRequest;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.StreamRefs;

/**
 * The replica's side of the relayed path: the same slots, reservations, validation and engine
 * as its HTTP endpoint, but the request arrives as a {@link Generate} message and the tokens leave
 * through a stream ref in {@link TokenBatch}es, for the ingress to frame.
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
      request = relayable(parser.parse(generate.kind(), generate.body()));
    } catch (ApiError error) {
      slot.release();
      return CompletableFuture.completedFuture(new GenerateReply.Refused(replicaId,
          error.status(), Optional.empty(), error.toJson()));
    }
    // A stream ref nobody subscribes to fails after its subscription timeout, which ends this
    // source too and frees the slot.
    var tokens = engine
        .generate(new GenerationRequest(generate.requestId(), request.prompt(),
            request.maxTokens(), request.seed(), 0, List.of()))
        .watchTermination((notUsed, done) -> {
          done.whenCompleteAsync((d, failure) -> slot.release(), executor);
          return notUsed;
        })
        // Tokens the ingress has not asked for yet travel together: one message per batch.
        .batch(TokenBatch.MAX_TOKENS, RelayHandler::firstOf, RelayHandler::add)
        .map(TokenBatch::new)
        .runWith(StreamRefs.sourceRef(), materializer);
    return CompletableFuture.completedFuture(
        new GenerateReply.Streaming(replicaId, request, tokens));
  }

  /**
   * The ingress frames relayed tokens as one choice that runs to its {@code max_tokens}: a
   * request for more choices or with stop strings would get a wrong answer, so it is refused
   * naming the field (the direct path serves both).
   */
  private static CompletionRequest relayable(CompletionRequest request) {
    if (request.n() > 1) {
      throw ApiError.invalid("n", "n: " + request.n() + " (expected: 1 on the relayed path, "
          + "sluice.ingress.direct-streaming = off; the direct path serves up to "
          + CompletionRequestParser.MAX_N + ")");
    }
    if (!request.stop().isEmpty()) {
      throw ApiError.invalid("stop", "stop: " + JsonText.quote(request.stop().get(0))
          + (request.stop().size() > 1 ? ", ..." : "") + " (expected: none on the relayed "
          + "path, sluice.ingress.direct-streaming = off; the direct path honours stop)");
    }
    return request;
  }

  private static java.util.List<String> firstOf(String token) {
    java.util.List<String> batch = new java.util.ArrayList<>();
    batch.add(token);
    return batch;
  }

  private static java.util.List<String> add(java.util.List<String> batch, String token) {
    batch.add(token);
    return batch;
  }

  private CompletionStage<GenerateReply> refuse(ServeReason reason, String message) {
    return CompletableFuture.completedFuture(new GenerateReply.Refused(replicaId, 503,
        Optional.of(reason.value()),
        new ApiError(ApiError.Code.OVERLOADED, message, null).toJson()));
  }
}
