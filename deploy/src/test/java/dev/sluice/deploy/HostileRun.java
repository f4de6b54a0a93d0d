package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.capacity.CapacityQueue;
import dev.sluice.capacity.CapacitySnapshot;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Sends {@link HostileCases} to one data plane of a node in front of real replicas
 * (capacity-queue policy, so leases are checked too), each while concurrent victims complete
 * through the same data plane: every victim must get its own answer. Counts the messages that
 * reached the replicas, and checks that no slot and no lease is left behind.
 */
final class HostileRun {

  static final long MAX_BODY = 64 * 1024;
  private static final int VICTIMS = 2;

  /** What the client read, and how many messages reached the replicas meanwhile. */
  record Result(List<RawHttp.Response> answers, long forwarded) {}

  private final SluiceNode node;
  private final int port;
  private int victimSerial;

  HostileRun(SluiceNode node, int port) {
    this.node = node;
    this.port = port;
  }

  /** A node serving two simulated replicas, the body limit {@link #MAX_BODY}, and {@code extra}. */
  static SluiceNode node(String extra) throws Exception {
    return TestNodes.local("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 4}
                deployment_config:
                  num_replicas: 2
                  max_ongoing_requests: 16
                  request_router_config: {request_router_class: capacity-queue}
        """, ConfigFactory.parseString("sluice.ingress.max-request-bytes = " + MAX_BODY + "\n"
        + extra));
  }

  /** Sends {@code hostile} while the victims run; they are checked before this returns. */
  Result send(HostileCases.Case hostile) throws Exception {
    return send(hostile, hostile.answers());
  }

  /** {@link #send(HostileCases.Case)}, reading up to {@code answers} answers. */
  Result send(HostileCases.Case hostile, int answers) throws Exception {
    long before = replicaRequests();
    List<CompletableFuture<HttpResponse<String>>> victims = new ArrayList<>();
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < VICTIMS; i++) {
      String prompt = "victim-" + victimSerial++;
      prompts.add(prompt);
      victims.add(CompletableFuture.supplyAsync(() -> victim(prompt)));
    }

    List<RawHttp.Response> read = RawClient.exchange(port, hostile.request(), answers);

    for (int i = 0; i < VICTIMS; i++) {
      HttpResponse<String> victim = victims.get(i).join();
      assertThat(victim.statusCode()).as(victim.body()).isEqualTo(200);
      assertThat(Sse.json(victim.body()).at("/choices/0/message/content").asText())
          .as("the victim's own answer").isEqualTo(SimulatedEngine.text(prompts.get(i), 3));
    }
    return new Result(read, replicaRequests() - before - VICTIMS);
  }

  private HttpResponse<String> victim(String prompt) {
    try {
      return TestNodes.post(port, "/v1/chat/completions",
          "{\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}],\"max_tokens\":3}");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private List<ReplicaInfo> replicas() {
    return node.ingressView().all().iterator().next().replicas();
  }

  private long replicaRequests() throws Exception {
    long total = 0;
    for (ReplicaInfo replica : replicas()) {
      total += Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("requests")
          .asLong();
    }
    return total;
  }

  /** No replica slot and no CapacityQueue lease is still held. */
  void noSlotOrLeaseIsLeftBehind() {
    Await.until(Duration.ofSeconds(5), "no slot and no lease held", () -> {
      int ongoing = 0;
      for (ReplicaInfo replica : replicas()) {
        try {
          ongoing += Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("ongoing")
              .asInt();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      CapacitySnapshot snapshot = AskPattern.<CapacityQueue.Command, CapacitySnapshot>ask(
              node.capacityQueue(), CapacityQueue.GetSnapshot::new, Duration.ofSeconds(3),
              node.system().scheduler())
          .toCompletableFuture().join();
      return ongoing == 0 && snapshot.leases() == 0 && snapshot.totalInFlight() == 0;
    });
  }
}
