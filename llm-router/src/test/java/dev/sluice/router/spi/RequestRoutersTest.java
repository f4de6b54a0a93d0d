package dev.sluice.router.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.policy.roundrobin.RoundRobinRouter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestRoutersTest {

  /** An outside policy, loaded by class name. */
  public static final class FirstOnly implements RequestRouter {
    final Map<String, Object> kwargs;

    public FirstOnly(Map<String, Object> kwargs) {
      this.kwargs = kwargs;
    }

    @Override
    public List<List<ReplicaInfo>> chooseReplicas(
        List<ReplicaInfo> candidates, PendingRequest request) {
      return candidates.isEmpty() ? List.of() : List.of(List.of(candidates.get(0)));
    }
  }

  @Test
  void createsBuiltInPolicyByKey() {
    assertThat(RequestRouters.create("round-robin", Map.of()))
        .isInstanceOf(RoundRobinRouter.class);
  }

  @Test
  void unknownKeyListsTheKnownKeys() {
    assertThatThrownBy(() -> RequestRouters.create("fastest", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'fastest'")
        .hasMessageContaining("round-robin");
  }

  @Test
  void loadsOutsidePolicyByClassNameWithKwargs() {
    RequestRouter router = RequestRouters.create(FirstOnly.class.getName(), Map.of("k", 1L));

    assertThat(router).isInstanceOf(FirstOnly.class);
    assertThat(((FirstOnly) router).kwargs).containsEntry("k", 1L);
  }

  @Test
  void classThatIsNotAPolicyIsRefused() {
    assertThatThrownBy(() -> RequestRouters.create("java.lang.String", Map.of()))
        .hasMessageContaining("expected: a class implementing");
    assertThatThrownBy(() -> RequestRouters.create("com.example.Missing", Map.of()))
        .hasMessageContaining("not found");
  }
}
