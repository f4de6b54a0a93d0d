package dev.sluice.router.reserve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.ClusterToken;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.BufferOverflowException;
import org.apache.pekko.stream.StreamTcpException;

/**
 * Talks to a replica's reservation endpoint: {@code POST /-/reservations} takes a slot (token +
 * true ongoing count) or is refused (ongoing count); {@code DELETE /-/reservations/<token>}
 * gives an unused slot back (idempotent on the replica).
 */
public final class ReservationClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final Duration timeout;
  private final ClusterToken token;

  public ReservationClient(ActorSystem<?> system, Duration timeout) {
    this.system = system;
    this.timeout = timeout;
    this.token = ClusterToken.of(system);
  }

  /** {@code request} with the cluster token, which every replica route but health needs. */
  public HttpRequest authorized(HttpRequest request) {
    return token.authorization()
        .map(value -> request.addHeader(RawHeader.create("authorization", value)))
        .orElse(request);
  }

  /**
   * The replica's answer.
   *
   * @param token the reservation, empty when the replica refused (at capacity or draining)
   */
  public record Outcome(Optional<String> token, int ongoing) {}

  public CompletionStage<Outcome> reserve(ReplicaInfo replica) {
    return Http.get(system)
        .singleRequest(authorized(
            HttpRequest.POST("http://" + replica.authority() + "/-/reservations")))
        .thenComposeAsync(response -> response.entity().toStrict(timeout.toMillis(), system)
            .thenApplyAsync(entity -> parse(response.status().intValue(),
                entity.getData().utf8String()), system.executionContext()),
            system.executionContext())
        .toCompletableFuture()
        .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  public CompletionStage<Void> release(ReplicaInfo replica, String token) {
    return Http.get(system)
        .singleRequest(authorized(HttpRequest.create("http://" + replica.authority()
            + "/-/reservations/" + token).withMethod(HttpMethods.DELETE)))
        .thenAcceptAsync(response -> response.discardEntityBytes(system),
            system.executionContext());
  }

  /**
   * Why a reservation request failed, in words a client may read: no addresses, no exception
   * text (Pekko's connect failures name the replica's host and port).
   */
  public static String describe(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof StreamTcpException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof ConnectException || cause instanceof StreamTcpException) {
      return "connection refused or failed";
    }
    if (cause instanceof TimeoutException) {
      return "no answer in time";
    }
    if (cause instanceof BufferOverflowException) {
      return "too many reservation requests queued for it";
    }
    return "request failed (" + cause.getClass().getSimpleName() + ")";
  }

  private static Outcome parse(int status, String body) {
    try {
      JsonNode json = JSON.readTree(body);
      int ongoing = json.path("ongoing").asInt(-1);
      if (status == 200 && json.path("token").isTextual()) {
        return new Outcome(Optional.of(json.get("token").asText()), ongoing);
      }
      return new Outcome(Optional.empty(), ongoing);
    } catch (java.io.IOException e) {
      return new Outcome(Optional.empty(), -1);
    }
  }
}
