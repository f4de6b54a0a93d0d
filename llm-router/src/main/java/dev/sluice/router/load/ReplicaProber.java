package dev.sluice.router.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.ClusterToken;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** Asks a replica for its queue length: {@code GET /-/stats} on its own endpoint, with a deadline. */
public final class ReplicaProber {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final ClusterToken token;

  public ReplicaProber(ActorSystem<?> system) {
    this.system = system;
    this.token = ClusterToken.of(system);
  }

  /** What a probe learned. */
  public record Probed(int ongoing, int waiting) {}

  public CompletionStage<Probed> probe(ReplicaInfo replica, Duration deadline) {
    return Http.get(system)
        .singleRequest(token.authorization()
            .map(value -> stats(replica).addHeader(RawHeader.create("authorization", value)))
            .orElseGet(() -> stats(replica)))
        .thenComposeAsync(response -> response.entity().toStrict(deadline.toMillis(), system),
            system.executionContext())
        .thenApplyAsync(entity -> parse(entity.getData().utf8String()), system.executionContext())
        .toCompletableFuture()
        .orTimeout(deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static HttpRequest stats(ReplicaInfo replica) {
    return HttpRequest.create("http://" + replica.authority() + "/-/stats");
  }

  private static Probed parse(String body) {
    try {
      JsonNode stats = JSON.readTree(body);
      if (!stats.path("ongoing").isInt()) {
        throw new IllegalStateException("no ongoing count in probe answer");
      }
      return new Probed(stats.get("ongoing").asInt(), stats.path("engine").path("waiting").asInt());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("unreadable probe answer", e);
    }
  }
}
