package dev.sluice.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaState;
import dev.sluice.replica.NodeAgent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class GpuLedgerTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final DeploymentId LLM = new DeploymentId("llm", "ext");

  private final ActorRef<NodeAgent.Command> big = testKit.<NodeAgent.Command>createTestProbe()
      .ref();
  private final ActorRef<NodeAgent.Command> none = testKit.<NodeAgent.Command>createTestProbe()
      .ref();
  private final ActorRef<NodeAgent.Command> silent = testKit.<NodeAgent.Command>createTestProbe()
      .ref();
  private final Map<ActorRef<NodeAgent.Command>, String> names =
      Map.of(big, "big", none, "none", silent, "silent");
  private final List<ReplicaRecord> replicas = new ArrayList<>();

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private ReplicaRecord placed(ActorRef<NodeAgent.Command> node, int gpus, ReplicaState state) {
    ReplicaRecord record = new ReplicaRecord(new ReplicaInfo(ReplicaId.random(LLM), "n", "h", 1,
        8, state, List.of("ext")), node, "v", 0);
    record.gpusNeeded = gpus;
    replicas.add(record);
    return record;
  }

  private GpuLedger ledger() {
    GpuLedger ledger = new GpuLedger();
    ledger.offered(big, List.of("0", "1", "2"));
    ledger.offered(none, List.of());
    return ledger;
  }

  @Test
  void aReplicaFitsWhereTheNodeOffersMoreThanItsReplicasNeedDrainingOnesIncluded() {
    GpuLedger ledger = ledger();
    placed(big, 1, ReplicaState.RUNNING);
    ReplicaRecord draining = placed(big, 1, ReplicaState.DRAINING);

    assertThat(ledger.fits(big, 1, replicas)).isTrue();
    assertThat(ledger.fits(big, 2, replicas)).as("the draining server still holds one").isFalse();
    assertThat(ledger.fits(none, 1, replicas)).isFalse();
    assertThat(ledger.fits(silent, 1, replicas)).as("not answered yet").isFalse();
    assertThat(ledger.fits(silent, 0, replicas)).as("no GPU needed: anywhere").isTrue();
    replicas.remove(draining);
    assertThat(ledger.fits(big, 2, replicas)).isTrue();
  }

  @Test
  void theShortageNamesEachNodesFreeGpus() {
    GpuLedger ledger = ledger();
    placed(big, 2, ReplicaState.RUNNING);

    assertThat(ledger.shortage(2, List.of(big, none, silent), replicas, names::get))
        .isEqualTo("waiting for GPUs: each replica needs 2 (num_gpus); 1 of 3 free on big, "
            + "none offered on none, not known yet on silent (sluice.replica.gpus)");
    ledger.retain(Set.of(none));
    assertThat(ledger.fits(big, 1, List.of())).as("a node that left is forgotten").isFalse();
  }

  @Test
  void oldReplicasMakeRoomOnlyWhereTheirGpusWouldLetTheNewOneFit() {
    GpuLedger ledger = ledger();
    ReplicaRecord one = placed(big, 1, ReplicaState.RUNNING);
    ReplicaRecord two = placed(big, 2, ReplicaState.RUNNING);

    assertThat(ledger.fitsWithout(big, 1, replicas, one::equals)).isTrue();
    assertThat(ledger.fitsWithout(big, 2, replicas, one::equals)).as("1 of 3 would be free")
        .isFalse();
    assertThat(ledger.fitsWithout(big, 3, replicas, r -> r == one || r == two))
        .as("once both are gone").isTrue();
    assertThat(ledger.fitsWithout(none, 1, replicas, r -> true)).isFalse();
  }

  @Test
  void theReportCountsWhatEachNodeOffersAndWhatItsReplicasWereGiven() {
    GpuLedger ledger = ledger();
    placed(big, 2, ReplicaState.RUNNING);
    placed(big, 1, ReplicaState.STARTING);

    assertThat(ledger.report(List.of(big, none, silent), replicas, names::get).toString())
        .isEqualTo("{\"offered\":3,\"allocated\":3,\"nodes\":[{\"node\":\"big\","
            + "\"offered\":3,\"allocated\":3}]}");
  }
}
