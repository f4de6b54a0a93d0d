package dev.sluice.router.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaLoad;
import dev.sluice.router.testing.Replicas;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadTrackerTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final LoadTracker tracker = new LoadTracker(now::get, Duration.ofSeconds(10));
  private final ReplicaInfo replica = Replicas.replica("aaaaaaaa", 8);

  private void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }

  @Test
  void unknownUntilReportedThenReportPlusOwnAssignments() {
    assertThat(tracker.queueLength(replica)).isEmpty();
    tracker.onAssigned(replica.id());
    assertThat(tracker.estimatedLoad(replica)).isEqualTo(1);

    tracker.onReport(new ReplicaLoad(replica.id(), 3, 1, 8, 0, 0));
    tracker.onAssigned(replica.id());
    tracker.onAssigned(replica.id());

    assertThat(tracker.queueLength(replica)).hasValue(5);
    tracker.onCompleted(replica.id());
    assertThat(tracker.queueLength(replica)).hasValue(4);
  }

  @Test
  void aReportOlderThanTenSecondsIsUnknown() {
    tracker.onReport(new ReplicaLoad(replica.id(), 2, 0, 8, 0, 0));
    advance(Duration.ofSeconds(10));
    assertThat(tracker.queueLength(replica)).hasValue(2);

    advance(Duration.ofMillis(1));

    assertThat(tracker.queueLength(replica)).isEmpty();
  }

  @Test
  void knownFullMeansAtMaxOngoingRequests() {
    tracker.onReport(new ReplicaLoad(replica.id(), 7, 0, 8, 0, 0));
    assertThat(tracker.isKnownFull(replica)).isFalse();
    tracker.onAssigned(replica.id());
    assertThat(tracker.isKnownFull(replica)).isTrue();
  }

  @Test
  void unknownReplicasAreProbedOnceAtATimeWithDoublingDeadlines() {
    tracker.queueLength(replica);
    assertThat(tracker.takeProbeRequests()).containsExactly(replica);
    assertThat(tracker.probeDeadline(replica.id())).isEqualTo(Duration.ofMillis(100));

    tracker.queueLength(replica);
    assertThat(tracker.takeProbeRequests()).as("a probe is already running").isEmpty();

    tracker.onProbeFailed(replica.id());
    assertThat(tracker.probeDeadline(replica.id())).isEqualTo(Duration.ofMillis(200));
    for (int i = 0; i < 5; i++) {
      tracker.onProbeFailed(replica.id());
    }
    assertThat(tracker.probeDeadline(replica.id())).isEqualTo(Duration.ofSeconds(1));

    tracker.queueLength(replica);
    assertThat(tracker.takeProbeRequests()).containsExactly(replica);
    tracker.observed(replica.id(), 4, 0);
    assertThat(tracker.probeDeadline(replica.id())).isEqualTo(Duration.ofMillis(100));
    assertThat(tracker.queueLength(replica)).hasValue(4);
  }

  @Test
  void forgetsReplicasThatLeft() {
    tracker.onReport(new ReplicaLoad(replica.id(), 2, 0, 8, 0, 0));

    tracker.retain(Set.of());

    assertThat(tracker.queueLength(replica)).isEmpty();
  }
}
