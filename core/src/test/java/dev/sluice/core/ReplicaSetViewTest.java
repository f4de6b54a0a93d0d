package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicaSetViewTest {

  private static final DeploymentId DEPLOYMENT = new DeploymentId("llm", "sim");

  private static ReplicaInfo replica(String uniqueId) {
    return new ReplicaInfo(ReplicaId.parse("llm#sim#" + uniqueId), "node", "127.0.0.1", 30000,
        4, ReplicaState.RUNNING, List.of("sim"));
  }

  private static ReplicaSet set(long version, ReplicaInfo... replicas) {
    return new ReplicaSet(DEPLOYMENT, version, "/", List.of("sim"), "round-robin", Map.of(),
        List.of(replicas));
  }

  @Test
  void keepsOnlyNewerVersions() {
    ReplicaSetView view = new ReplicaSetView();
    assertThat(view.apply(set(2, replica("aaaaaaaa")))).isTrue();
    assertThat(view.apply(set(1, replica("bbbbbbbb")))).isFalse();
    assertThat(view.replica("llm#sim#aaaaaaaa")).isPresent();
    assertThat(view.replica("llm#sim#bbbbbbbb")).isEmpty();
  }

  @Test
  void aRemovedDeploymentIsForgottenAndNotRevivedByAnOlderSet() {
    ReplicaSetView view = new ReplicaSetView();
    DeploymentId other = new DeploymentId("default", "sluice-sim");
    view.apply(set(1, replica("aaaaaaaa")));
    view.apply(new ReplicaSet(other, 1, "/", List.of("sluice-sim"), "round-robin", Map.of(),
        List.of()));
    assertThat(view.all()).hasSize(2);

    assertThat(view.apply(new ReplicaSet(other, 2, "/", List.of("sluice-sim"), "round-robin",
        Map.of(), List.of(), true))).isTrue();
    assertThat(view.all()).extracting(ReplicaSet::deployment).containsExactly(DEPLOYMENT);
    assertThat(view.apply(new ReplicaSet(other, 1, "/", List.of("sluice-sim"), "round-robin",
        Map.of(), List.of()))).isFalse();
    assertThat(view.all()).hasSize(1);
  }

  @Test
  void aPathBelongsToTheApplicationWithTheLongestRoutePrefixThatTakesItsSegments() {
    ReplicaSetView view = new ReplicaSetView();
    assertThat(view.route("/v1/models")).as("no application known yet").isEmpty();
    view.apply(set(1, replica("aaaaaaaa")));
    view.apply(new ReplicaSet(new DeploymentId("chat", "m"), 1, "/chat", List.of("m"),
        "round-robin", Map.of(), List.of()));
    view.apply(new ReplicaSet(new DeploymentId("team", "m"), 1, "/chat/team", List.of("m"),
        "round-robin", Map.of(), List.of()));

    assertThat(view.route("/v1/models")).contains(new AppRoute("llm", "/", "/v1/models"));
    assertThat(view.route("/chat/v1/models")).contains(new AppRoute("chat", "/chat", "/v1/models"));
    assertThat(view.route("/chat")).contains(new AppRoute("chat", "/chat", "/"));
    assertThat(view.route("/chat/")).contains(new AppRoute("chat", "/chat", "/"));
    assertThat(view.route("/chatbot/v1")).as("a prefix takes whole segments")
        .contains(new AppRoute("llm", "/", "/chatbot/v1"));
    assertThat(view.route("/chat/team/v1/completions"))
        .contains(new AppRoute("team", "/chat/team", "/v1/completions"));
    assertThat(view.routePrefixes()).containsExactly(Map.entry("/", "llm"),
        Map.entry("/chat", "chat"), Map.entry("/chat/team", "team"));

    view.apply(new ReplicaSet(DEPLOYMENT, 2, "/", List.of("sim"), "round-robin", Map.of(),
        List.of(), true));
    assertThat(view.route("/v1/models")).as("the root application was removed").isEmpty();
  }

  @Test
  void aReplicaInEveryVersionIsNeverUnknownWhileSetsChange() throws Exception {
    ReplicaSetView view = new ReplicaSetView();
    ReplicaInfo stable = replica("stable00");
    view.apply(set(1, stable, replica("churn000")));
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong misses = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    Thread reader = new Thread(() -> {
      while (running.get()) {
        reads.incrementAndGet();
        if (view.replica(stable.id().toString()).isEmpty()) {
          misses.incrementAndGet();
        }
      }
    });
    reader.start();
    for (int version = 2; version < 20_000; version++) {
      view.apply(set(version, stable, replica(String.format("c%07d", version))));
    }
    running.set(false);
    reader.join();

    assertThat(reads.get()).isPositive();
    assertThat(misses.get()).as("reads that missed a replica present in every version").isZero();
    assertThat(view.replica("llm#sim#churn000")).isEmpty();
  }

  @Test
  void remembersReplicasANewerSetDroppedApartFromOnesNeverSeen() {
    ReplicaSetView view = new ReplicaSetView();
    view.apply(set(1, replica("stays000"), replica("leaves00")));
    view.apply(set(2, replica("stays000"), replica("joins000")));

    assertThat(view.retired("llm#sim#leaves00")).isTrue();
    assertThat(view.retired("llm#sim#stays000")).isFalse();
    assertThat(view.retired("llm#sim#joins000")).isFalse();
    assertThat(view.retired("llm#sim#never000")).as("never seen").isFalse();
    assertThat(view.apply(set(1, replica("leaves00")))).as("older set").isFalse();
    assertThat(view.retired("llm#sim#leaves00")).isTrue();
  }

  @Test
  void forgetsTheOldestRetiredReplicasBeyondItsBound() {
    ReplicaSetView view = new ReplicaSetView();
    int dropped = ReplicaSetView.RETIRED_REMEMBERED + 10;
    for (int version = 1; version <= dropped + 1; version++) {
      view.apply(set(version, replica(String.format("r%07d", version))));
    }

    assertThat(view.retired("llm#sim#r0000001")).as("among the oldest dropped").isFalse();
    assertThat(view.retired("llm#sim#r0000011")).isTrue();
    assertThat(view.retired(String.format("llm#sim#r%07d", dropped))).isTrue();
    assertThat(view.retired(String.format("llm#sim#r%07d", dropped + 1))).as("current").isFalse();
  }
}
