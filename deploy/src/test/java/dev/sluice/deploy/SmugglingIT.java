package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The two request-smuggling attacks the audit found, against a live ingress in front of real
 * replicas (and the second through the node's HAProxy data plane): the attacker gets a 400,
 * nothing of it reaches a replica, and each of 24 concurrent victims gets its own completion,
 * never the attacker's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmugglingIT {

  private static final int VICTIMS = 24;
  private static final int HAPROXY_PORT = 19206;
  private static final String SMUGGLED_BODY =
      "{\"messages\":[{\"role\":\"user\",\"content\":\"ATTACK\"}],\"max_tokens\":1500}";

  private SluiceNode node;
  private int ingress;

  @BeforeAll
  void start() throws Exception {
    node = TestNodes.local(TestNodes.app(2, 0, 0, 256),
        ConfigFactory.parseString("sluice.haproxy.port = " + HAPROXY_PORT));
    ingress = node.ingressPort().orElseThrow();
  }

  @AfterAll
  void stop() {
    node.close();
  }

  /** Critical 1: a bare LF in a header value makes the replica read a second request. */
  private static String bareLfInjection() {
    String smuggled = "POST /v1/chat/completions HTTP/1.1\nHost: b\nContent-Type: "
        + "application/json\nContent-Length: " + SMUGGLED_BODY.length() + "\n\n" + SMUGGLED_BODY;
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"front\"}],\"max_tokens\":1}";
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Inj: a\n\n" + smuggled
        + "\nX-Tail: z\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
        + "\r\n\r\n" + body;
  }

  /**
   * Critical 2: a UTF-8 lead byte ending the reflected request id swallows the Content-Length
   * the ingress writes after it, so the body becomes a second request at the replica.
   */
  private static String leadByteInjection() {
    return leadByteInjection("x-request-id");
  }

  /** Critical 2 in any header: the byte ends the value of {@code header}. */
  private static String leadByteInjection(String header) {
    String smuggled = "POST /v1/chat/completions HTTP/1.1\r\nHost: b\r\nContent-Type: "
        + "application/json\r\nContent-Length: " + SMUGGLED_BODY.length() + "\r\n\r\n"
        + SMUGGLED_BODY;
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + header + ": abc\u00e9\r\n"
        + "Content-Length: " + smuggled.length() + "\r\n\r\n" + smuggled;
  }

  @Test
  void aBareLfInjectionNeverGivesAVictimTheAttackersCompletion() throws Exception {
    attackAndCheckVictims(bareLfInjection());
  }

  @Test
  void aLeadByteInjectionNeverGivesAVictimTheAttackersCompletion() throws Exception {
    attackAndCheckVictims(leadByteInjection());
  }

  /**
   * Critical 2 through the HAProxy data plane, in a header HAProxy leaves as it is: HAProxy
   * passed the byte on, and a replica's endpoint ran the body as a second completion (by hand,
   * 10 such requests ran 20 completions). Now HAProxy refuses it, as the ingress does.
   */
  @Test
  void aLeadByteInjectionThroughHaproxyReachesNoReplica() throws Exception {
    attackAndCheckVictims(HAPROXY_PORT, leadByteInjection("x-note"));
  }

  private long replicaRequests() throws Exception {
    long total = 0;
    for (ReplicaInfo replica : node.ingressView().all().iterator().next().replicas()) {
      total += Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("requests")
          .asLong();
    }
    return total;
  }

  private void attackAndCheckVictims(String attack) throws Exception {
    attackAndCheckVictims(ingress, attack);
  }

  /** The attack and the victims through the data plane at {@code port}. */
  private void attackAndCheckVictims(int port, String attack) throws Exception {
    long before = replicaRequests();
    ExecutorService pool = Executors.newFixedThreadPool(VICTIMS + 1);
    try {
      Future<List<RawHttp.Response>> attacker = pool.submit(() ->
          RawClient.exchange(port, RawClient.bytes(attack), 2));
      List<Future<HttpResponse<String>>> victims = new ArrayList<>();
      for (int i = 0; i < VICTIMS; i++) {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"victim-" + i
            + "\"}],\"max_tokens\":8,\"stream\":true}";
        victims.add(pool.submit(() -> TestNodes.post(port, "/v1/chat/completions", body)));
      }

      List<RawHttp.Response> answers = attacker.get();
      assertThat(answers).as("one answer, then the connection closes").hasSize(1);
      assertThat(answers.get(0).status()).isEqualTo(400);
      for (int i = 0; i < VICTIMS; i++) {
        HttpResponse<String> victim = victims.get(i).get();
        assertThat(victim.statusCode()).isEqualTo(200);
        List<JsonNode> frames = Sse.jsonFrames(victim.body());
        assertThat(Sse.text(frames)).as("victim %d got its own completion", i)
            .isEqualTo(SimulatedEngine.text("victim-" + i, 8));
        assertThat(victim.headers().firstValue("x-sluice-served-by"))
            .isEqualTo(victim.headers().firstValue("x-sluice-replica"));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(replicaRequests() - before).as("messages the replicas received")
        .isEqualTo(VICTIMS);
  }
}
