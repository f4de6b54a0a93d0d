package dev.sluice.router;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.router.reserve.ReservationClient;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.ResponseEntity;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * A chosen replica. With a reservation it may be {@link #dispatch dispatched} exactly once; a
 * selection made without one cannot be dispatched. Closing a selection that was not dispatched
 * gives its slot back (idempotent). After a dispatch the slot belongs to the request: the replica
 * frees it when the answer ends, and the router hears that the request completed.
 */
public final class Selection implements AutoCloseable {

  private final ActorSystem<?> system;
  private final ActorRef<LLMRouter.Command> router;
  private final ReservationClient reservations;
  private final ReplicaInfo replica;
  private final Optional<String> token;
  private final String requestId;
  private final AtomicBoolean used = new AtomicBoolean();

  Selection(ActorSystem<?> system, ActorRef<LLMRouter.Command> router,
      ReservationClient reservations, ReplicaInfo replica, Optional<String> token,
      String requestId) {
    this.system = system;
    this.router = router;
    this.reservations = reservations;
    this.replica = replica;
    this.token = token;
    this.requestId = requestId;
  }

  public ReplicaInfo replica() {
    return replica;
  }

  /** Whether a slot is reserved for this selection. */
  public boolean reserved() {
    return token.isPresent();
  }

  /**
   * Sends {@code request} (its path, method, headers and entity) to the replica with the slot
   * token. Fails with {@link IllegalStateException} when called twice, after {@link #close()},
   * or on a selection without a reservation.
   */
  public CompletionStage<HttpResponse> dispatch(HttpRequest request) {
    if (token.isEmpty()) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "a selection made without a reservation cannot be dispatched (pick-only)"));
    }
    if (!used.compareAndSet(false, true)) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "selection already dispatched or closed"));
    }
    HttpRequest upstream = reservations.authorized(request
        .withUri("http://" + replica.authority() + request.getUri().getPathString())
        .addHeader(RawHeader.create(SluiceHeaders.SLOT_TOKEN, token.get()))
        .addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId)));
    return Http.get(system).singleRequest(upstream)
        .handleAsync((response, failure) -> {
          if (failure != null) {
            reservations.release(replica, token.get());
            completed();
            throw new java.util.concurrent.CompletionException(failure);
          }
          return response.withEntity(whenDone(response.entity()));
        }, system.executionContext());
  }

  /**
   * Dispatches by another transport (the relayed path sends the request to the replica actor):
   * hands the reservation token to {@code send} exactly once. Fails like {@link #dispatch}.
   * The caller reports the end of the request with {@link #ended()}.
   */
  public <T> CompletionStage<T> dispatchWith(
      java.util.function.Function<String, CompletionStage<T>> send) {
    if (token.isEmpty()) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "a selection made without a reservation cannot be dispatched (pick-only)"));
    }
    if (!used.compareAndSet(false, true)) {
      return CompletableFuture.failedFuture(new IllegalStateException(
          "selection already dispatched or closed"));
    }
    return send.apply(token.get());
  }

  /**
   * Gives the slot back after a dispatch that failed before the replica took the request (an
   * unknown or already consumed token is ignored by the replica).
   */
  public void releaseAfterFailedDispatch() {
    token.ifPresent(t -> reservations.release(replica, t));
    completed();
  }

  /** The dispatched request has ended; tells the router (for its load accounting). */
  public void ended() {
    completed();
  }

  /** Gives the reserved slot back unless the selection was dispatched. Idempotent. */
  @Override
  public void close() {
    if (used.compareAndSet(false, true) && token.isPresent()) {
      reservations.release(replica, token.get());
    }
  }

  private ResponseEntity whenDone(ResponseEntity entity) {
    var watched = entity.getDataBytes().watchTermination((mat, done) -> {
      done.whenCompleteAsync((d, failure) -> completed(), system.executionContext());
      return mat;
    });
    return entity.getContentLengthOption().isPresent()
        ? HttpEntities.create(entity.getContentType(), entity.getContentLengthOption().getAsLong(),
            watched)
        : HttpEntities.createChunked(entity.getContentType(), watched);
  }

  private void completed() {
    router.tell(new LLMRouter.RequestCompleted(replica.id().toString(), requestId));
  }
}
