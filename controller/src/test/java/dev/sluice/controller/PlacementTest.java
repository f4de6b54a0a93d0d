package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.replica.NodeAgent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class PlacementTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final DeploymentId A = new DeploymentId("llm", "a");
  private static final DeploymentId B = new DeploymentId("llm", "b");

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static ReplicaRecord place(List<ReplicaRecord> replicas,
      List<ActorRef<NodeAgent.Command>> nodes, DeploymentId deployment) {
    return place(replicas, nodes, deployment, new Placement.Failures());
  }

  private static ReplicaRecord place(List<ReplicaRecord> replicas,
      List<ActorRef<NodeAgent.Command>> nodes, DeploymentId deployment,
      Placement.Failures failures) {
    ActorRef<NodeAgent.Command> node = Placement.choose(nodes, replicas, deployment, failures)
        .orElseThrow();
    ReplicaRecord record = new ReplicaRecord(new ReplicaInfo(ReplicaId.random(deployment), "n",
        "h", 1, 8, ReplicaState.STARTING, List.of("m")), node, "v", 0);
    replicas.add(record);
    return record;
  }

  @Test
  void spreadsADeploymentEvenlyOverTheNodesWhateverRegisteredFirst() {
    List<ActorRef<NodeAgent.Command>> nodes = List.of(
        testKit.<NodeAgent.Command>createTestProbe().ref(),
        testKit.<NodeAgent.Command>createTestProbe().ref());
    List<ReplicaRecord> replicas = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      place(replicas, nodes, A);
    }
    Map<ActorRef<NodeAgent.Command>, Integer> perNode = new HashMap<>();
    replicas.forEach(r -> perNode.merge(r.node, 1, Integer::sum));
    assertThat(perNode.values()).containsExactly(4, 4);
  }

  @Test
  void fewestOfTheDeploymentFirstThenFewestInAllAndDrainedOnesDoNotCount() {
    var first = testKit.<NodeAgent.Command>createTestProbe().ref();
    var second = testKit.<NodeAgent.Command>createTestProbe().ref();
    List<ActorRef<NodeAgent.Command>> nodes = List.of(first, second);
    List<ReplicaRecord> replicas = new ArrayList<>();
    ReplicaRecord b1 = place(replicas, nodes, B);
    ReplicaRecord a1 = place(replicas, nodes, A);
    assertThat(a1.node).as("the node without B's replica").isNotEqualTo(b1.node);
    ReplicaRecord a2 = place(replicas, nodes, A);
    assertThat(a2.node).isEqualTo(b1.node);
    a1.info = a1.info.withState(ReplicaState.DRAINING);
    assertThat(place(replicas, nodes, A).node).isEqualTo(a1.node);
  }

  @Test
  void aNodeWhereStartsFailIsAvoidedWhileAnotherHasRoom() {
    var healthy = testKit.<NodeAgent.Command>createTestProbe().ref();
    var broken = testKit.<NodeAgent.Command>createTestProbe().ref();
    List<ActorRef<NodeAgent.Command>> nodes = List.of(healthy, broken);
    List<ReplicaRecord> replicas = new ArrayList<>();
    Placement.Failures failures = new Placement.Failures();
    failures.failed(broken, System.nanoTime());

    for (int i = 0; i < 4; i++) {
      assertThat(place(replicas, nodes, A, failures).node).as("replica %d", i).isEqualTo(healthy);
    }
    failures.failed(healthy, System.nanoTime());
    failures.failed(healthy, System.nanoTime());
    assertThat(place(replicas, nodes, A, failures).node).as("every node failed: the fewest")
        .isEqualTo(broken);
    failures.succeeded(broken);
    assertThat(place(replicas, nodes, A, failures).node).isEqualTo(broken);
    failures.retain(java.util.Set.of(broken));
    assertThat(failures.recent(healthy, System.nanoTime())).as("a node that left").isZero();
  }

  @Test
  void aNodesFailedStartsAreForgottenAfterAMinuteWithoutAnother() {
    var node = testKit.<NodeAgent.Command>createTestProbe().ref();
    Placement.Failures failures = new Placement.Failures();
    long now = System.nanoTime();
    failures.failed(node, now);
    failures.failed(node, now + 1);
    assertThat(failures.recent(node, now + 1)).isEqualTo(2);
    assertThat(failures.recent(node, now + 1 + Placement.Failures.MEMORY_NANOS)).isEqualTo(2);
    assertThat(failures.recent(node, now + 2 + Placement.Failures.MEMORY_NANOS)).isZero();
  }

  @Test
  void aReplicaGoesOnlyWhereItFitsAndNowhereWhenNoNodeDoes() {
    List<ActorRef<NodeAgent.Command>> nodes = List.of(
        testKit.<NodeAgent.Command>createTestProbe().ref(),
        testKit.<NodeAgent.Command>createTestProbe().ref());
    List<ReplicaRecord> replicas = new ArrayList<>();
    // the node with GPUs runs another replica: without the fit, A would go to the other one
    var withGpus = place(replicas, nodes, B).node;
    assertThat(Placement.choose(nodes, replicas, A, new Placement.Failures()))
        .get().isNotEqualTo(withGpus);

    assertThat(Placement.choose(nodes, replicas, A, new Placement.Failures(),
        node -> node.equals(withGpus))).contains(withGpus);
    assertThat(Placement.choose(nodes, replicas, A, new Placement.Failures(), node -> false))
        .isEmpty();
  }
}
