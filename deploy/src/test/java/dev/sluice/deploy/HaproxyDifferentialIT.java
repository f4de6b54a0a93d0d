package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.testing.RawHttp;
import dev.sluice.core.testing.Sse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Differential test of the splice against HAProxy 2.6 (the data plane of Ray Serve and of many
 * operators), both in front of the same real replica: every hostile input HAProxy refuses, the
 * ingress refuses too. Where the two differ the ingress is the stricter one; the table of
 * differences (and what HAProxy let through to the replica) is written to
 * {@code target/haproxy-differential.txt}.
 */
class HaproxyDifferentialIT {

  private static final int HAPROXY = 18650;

  /**
   * An answer: its status, whether the edge made it itself (HAProxy's own error pages are HTML;
   * the ingress's refusals are answered with nothing at the replica), and what reached the
   * replica (probes, such as health checks, are not counted there).
   */
  private record Verdict(int status, boolean byTheEdge, long forwarded) {
    boolean refused() {
      return byTheEdge && status >= 400 && status < 600;
    }

    @Override
    public String toString() {
      return status + (byTheEdge ? " (answered by the edge)" : " (" + forwarded
          + " message" + (forwarded == 1 ? "" : "s") + " at the replica)");
    }
  }

  @Test
  void theIngressRefusesEverythingHaproxyRefuses() throws Exception {
    long maxBody = 64 * 1024;
    try (SluiceNode node = TestNodes.local(TestNodes.app(1, 0, 0, 64),
        ConfigFactory.parseString("sluice.ingress.max-request-bytes = " + maxBody))) {
      ReplicaInfo replica = node.ingressView().all().iterator().next().replicas().get(0);
      int ingress = node.ingressPort().orElseThrow();
      List<String> lines = new ArrayList<>();
      List<String> violations = new ArrayList<>();
      int stricter = 0;
      int haproxyRefused = 0;
      try (Haproxy haproxy = Haproxy.inFrontOf(HAPROXY, replica.port())) {
        for (HostileCases.Case hostile : HostileCases.all(maxBody)) {
          Verdict viaHaproxy = verdict(HAPROXY, hostile, replica, true);
          Verdict viaIngress = verdict(ingress, hostile, replica, false);
          if (viaHaproxy.refused()) {
            haproxyRefused++;
            if (!viaIngress.refused()) {
              violations.add(hostile.name() + ": HAProxy " + viaHaproxy + ", ingress "
                  + viaIngress);
            }
          } else if (viaIngress.refused()) {
            stricter++;
          }
          lines.add(String.format("%-55s | HAProxy %-40s | ingress %s", hostile.name(),
              viaHaproxy, viaIngress));
        }
      }
      lines.add(0, "cases: " + lines.size() + "; HAProxy refused " + haproxyRefused
          + "; the ingress also refused those, and " + stricter + " more");
      Files.write(Path.of("target", "haproxy-differential.txt"), lines);
      assertThat(violations).as("inputs HAProxy refuses but the ingress lets through").isEmpty();
      assertThat(haproxyRefused).as("the comparison exercised HAProxy's parser").isPositive();
    }
  }

  private static Verdict verdict(int port, HostileCases.Case hostile, ReplicaInfo replica,
      boolean haproxy) throws Exception {
    long before = requests(replica);
    int status = 0;
    String body = "";
    try {
      List<RawHttp.Response> answers = RawClient.exchange(port, hostile.request(), 1);
      if (!answers.isEmpty()) {
        status = answers.get(0).status();
        body = answers.get(0).body();
      }
    } catch (IOException reset) {
      status = 0;
    }
    long forwarded = requests(replica) - before;
    boolean byTheEdge = haproxy ? body.startsWith("<html><body><h1>") : forwarded == 0;
    return new Verdict(status, byTheEdge, forwarded);
  }

  private static long requests(ReplicaInfo replica) throws Exception {
    return Sse.json(TestNodes.get(replica.port(), "/-/stats").body()).get("requests").asLong();
  }
}
