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
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every hostile input of {@link HostileCases} against a live ingress in front of real replicas
 * (capacity-queue policy, so leases are checked too). Each case holds the invariants: the
 * designed status and nothing else (no 5xx but the designed ones), never more messages at the
 * replicas than the client sent, and every concurrent victim gets its own answer. After all of
 * them, no slot and no lease is left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputIT {

  private static final long MAX_BODY = 64 * 1024;
  private static final int VICTIMS = 2;

  private SluiceNode node;
  private int ingress;
  private int victimSerial;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local("""
        applications:
          - name: llm
            llm_configs:
              - model_loading_config: {model_id: sim}
                engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 4}
                deployment_config:
                  num_replicas: 2
                  max_ongoing_requests: 16
                  request_router_config: {request_router_class: capacity-queue}
        """, ConfigFactory.parseString("sluice.ingress.max-request-bytes = " + MAX_BODY));
    ingress = node.ingressPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    try {
      noSlotOrLeaseIsLeftBehind();
    } finally {
      node.close();
    }
  }

  Stream<HostileCases.Case> cases() {
    return HostileCases.all(MAX_BODY).stream();
  }

  @Test
  void theTableCoversAtLeastAHundredInputs() {
    assertThat(HostileCases.all(MAX_BODY)).hasSizeGreaterThanOrEqualTo(100);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void holdsTheInvariants(HostileCases.Case hostile) throws Exception {
    long before = replicaRequests();
    List<CompletableFuture<HttpResponse<String>>> victims = new ArrayList<>();
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < VICTIMS; i++) {
      String prompt = "victim-" + victimSerial++;
      prompts.add(prompt);
      victims.add(CompletableFuture.supplyAsync(() -> victim(prompt)));
    }

    List<RawHttp.Response> answers = RawClient.exchange(ingress, hostile.request(),
        hostile.answers());

    assertThat(answers).as("answers").hasSize(hostile.answers());
    RawHttp.Response first = answers.get(0);
    assertThat(first.status()).as("status").isEqualTo(hostile.status());
    hostile.check().accept(first);
    for (RawHttp.Response answer : answers) {
      if (answer.status() >= 500) {
        assertThat(answer.status()).as("only designed 5xx").isIn(503, 505);
      }
    }
    for (int i = 0; i < VICTIMS; i++) {
      HttpResponse<String> victim = victims.get(i).join();
      assertThat(victim.statusCode()).isEqualTo(200);
      assertThat(Sse.json(victim.body()).at("/choices/0/message/content").asText())
          .as("the victim's own answer").isEqualTo(SimulatedEngine.text(prompts.get(i), 3));
    }
    assertThat(replicaRequests() - before).as("messages that reached the replicas")
        .isEqualTo(hostile.forwarded() + VICTIMS);
  }

  private HttpResponse<String> victim(String prompt) {
    try {
      return TestNodes.post(ingress, "/v1/chat/completions",
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

  /** After every case has run: no replica slot and no CapacityQueue lease is still held. */
  private void noSlotOrLeaseIsLeftBehind() {
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
