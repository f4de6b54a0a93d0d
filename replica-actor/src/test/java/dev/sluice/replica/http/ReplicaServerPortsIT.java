package dev.sluice.replica.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.ConfigFactory;
import dev.sluice.core.config.EngineConfig;
import dev.sluice.replica.engine.SimulatedEngine;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Replica endpoints of one node share its port range without failing binds on each other. */
class ReplicaServerPortsIT {

  private static final List<Integer> RANGE = List.of(18971, 18972, 18973);
  private static final ActorTestKit testKit = ActorTestKit.create(
      ConfigFactory.parseResources("application-test-base.conf").withFallback(ConfigFactory.load()));
  private static final ReplicaHttpHandler handler = new ReplicaHttpHandler(testKit.system(),
      new ReplicaEndpointSettings("llm#sim#ports000", "sim", 2, 8, 4096, 1 << 20,
          Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(5)),
      new SimulatedEngine(new EngineConfig("simulated", 0, 10, 8, 4096, 256, 4096)));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void eachEndpointTakesTheNextPortTheNodeDoesNotHoldAndAFullRangeFailsAtOnce()
      throws Exception {
    ServerBinding first = bind(RANGE);
    ServerBinding second = bind(RANGE);
    ServerBinding third = bind(RANGE);
    assertThat(List.of(port(first), port(second), port(third))).isEqualTo(RANGE);

    // A replica tries the range rotated to start elsewhere; the error names the range itself.
    assertThatThrownBy(() -> bind(List.of(18972, 18973, 18971)))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("no free port for the replica endpoint on 127.0.0.1 in "
            + "18971..18973 (3 held by this node's replicas)");

    unbind(second);
    ServerBinding again = bind(RANGE);
    assertThat(port(again)).as("a closed endpoint's port is free again").isEqualTo(18972);
    for (ServerBinding binding : List.of(first, third, again)) {
      unbind(binding);
    }
  }

  @Test
  void aPortAnotherProcessHoldsIsSkippedAndNotKeptFromTheNode() throws Exception {
    ServerBinding binding;
    try (ServerSocket foreign = new ServerSocket(18974, 1, InetAddress.getLoopbackAddress())) {
      binding = bind(List.of(18974, 18975));
      assertThat(port(binding)).isEqualTo(18975);
    }
    ServerBinding freed = bind(List.of(18974));
    assertThat(port(freed)).isEqualTo(18974);
    unbind(binding);
    unbind(freed);
  }

  private static ServerBinding bind(List<Integer> ports) throws Exception {
    return ReplicaServer.bind(testKit.system(), "127.0.0.1", ports, handler)
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static void unbind(ServerBinding binding) throws Exception {
    ReplicaServer.unbind(testKit.system(), binding, Duration.ofSeconds(1)).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  private static int port(ServerBinding binding) {
    return binding.localAddress().getPort();
  }
}
