package dev.sluice.router.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.ReplicaInfo;
import dev.sluice.router.policy.consistenthash.ConsistentHashRouter;
import dev.sluice.router.policy.poweroftwo.PowerOfTwoRouter;
import dev.sluice.router.policy.prefixaffinity.PrefixCacheAffinityRouter;
import dev.sluice.router.policy.roundrobin.RoundRobinRouter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestRoutersTest {

  private static final RouterContext CONTEXT = RouterContext.forTests(7);

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
  void registersEveryBuiltInPolicyByKey() {
    assertThat(RequestRouters.keys()).containsExactly("capacity-queue", "consistent-hash",
        "power-of-two", "prefix-cache-affinity", "round-robin");
    assertThat(RequestRouters.create("capacity-queue", Map.of(), CONTEXT))
        .isInstanceOf(dev.sluice.router.policy.capacityqueue.CapacityQueueRouter.class);
    assertThat(RequestRouters.create("round-robin", Map.of(), CONTEXT))
        .isInstanceOf(RoundRobinRouter.class);
    assertThat(RequestRouters.create("power-of-two", Map.of(), CONTEXT))
        .isInstanceOf(PowerOfTwoRouter.class);
    assertThat(RequestRouters.create("consistent-hash", Map.of(), CONTEXT))
        .isInstanceOf(ConsistentHashRouter.class);
    assertThat(RequestRouters.create("prefix-cache-affinity", Map.of(), CONTEXT))
        .isInstanceOf(PrefixCacheAffinityRouter.class);
  }

  @Test
  void unknownKeyListsTheKnownKeys() {
    assertThatThrownBy(() -> RequestRouters.create("fastest", Map.of(), CONTEXT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("request_router_class: 'fastest' (expected: one of capacity-queue, "
            + "consistent-hash, power-of-two, prefix-cache-affinity, round-robin, or a fully "
            + "qualified class name)");
  }

  @Test
  void kwargsAreValidatedNamingTheKwarg() {
    assertThatThrownBy(() -> RequestRouters.validate("consistent-hash",
        Map.of("num_virtual_nodes", 0L)))
        .hasMessage("num_virtual_nodes: 0 (expected: > 0)");
    assertThatThrownBy(() -> RequestRouters.validate("consistent-hash",
        Map.of("num_fallback_replicas", -1L)))
        .hasMessage("num_fallback_replicas: -1 (expected: >= 0)");
    assertThatThrownBy(() -> RequestRouters.validate("consistent-hash",
        Map.of("num_virtual_nodes", "many")))
        .hasMessage("num_virtual_nodes: many (expected: an integer)");
    assertThatThrownBy(() -> RequestRouters.validate("prefix-cache-affinity",
        Map.of("min_match_ratio", 1.5)))
        .hasMessage("min_match_ratio: 1.5 (expected: 0..1)");
    assertThatThrownBy(() -> RequestRouters.validate("power-of-two", Map.of("k", 1L)))
        .hasMessageContaining("request_router_kwargs.k: unknown for power-of-two");
  }

  @Test
  void loadsOutsidePolicyByClassNameWithKwargs() {
    RequestRouter router = RequestRouters.create(FirstOnly.class.getName(), Map.of("k", 1L),
        CONTEXT);

    assertThat(router).isInstanceOf(FirstOnly.class);
    assertThat(((FirstOnly) router).kwargs).containsEntry("k", 1L);
    assertThat(RequestRouters.label(FirstOnly.class.getName()))
        .isEqualTo("RequestRoutersTest$FirstOnly");
  }

  /** Not a router; its static initializer records that it ran. */
  static final class NotARouter {
    static {
      Initialized.RAN.set(true);
    }
  }

  /** Holds the flag outside {@link NotARouter}, so reading it does not initialize that class. */
  static final class Initialized {
    static final java.util.concurrent.atomic.AtomicBoolean RAN =
        new java.util.concurrent.atomic.AtomicBoolean();
  }

  @Test
  void aClassThatIsNotAPolicyIsRefusedWithoutRunningItsStaticInitializer() {
    assertThatThrownBy(() -> RequestRouters.validate(NotARouter.class.getName(), Map.of()))
        .hasMessageContaining("expected: a class implementing");
    assertThat(Initialized.RAN).as("NotARouter's static initializer ran").isFalse();
  }

  @Test
  void classThatIsNotAPolicyIsRefused() {
    assertThatThrownBy(() -> RequestRouters.create("java.lang.String", Map.of(), CONTEXT))
        .hasMessageContaining("expected: a class implementing");
    assertThatThrownBy(() -> RequestRouters.create("com.example.Missing", Map.of(), CONTEXT))
        .hasMessageContaining("'com.example.Missing' not found")
        .hasMessageEndingWith("or a class on the classpath: SLUICE_CLASSPATH)");
  }

  /** An outside policy that routes by the prompt. */
  public static final class PromptFirst implements RequestRouter, ReadsPrompt {
    @Override
    public List<List<ReplicaInfo>> chooseReplicas(
        List<ReplicaInfo> candidates, PendingRequest request) {
      return List.of();
    }
  }

  /** Says it reads the prompt but is no policy. */
  static final class PromptButNoRouter implements ReadsPrompt {}

  @Test
  void aPolicyReadsThePromptWhenItsClassSaysSo() {
    assertThat(RequestRouters.readsPrompt("prefix-cache-affinity")).isTrue();
    assertThat(RequestRouters.keys()).filteredOn(key -> !key.equals("prefix-cache-affinity"))
        .noneMatch(RequestRouters::readsPrompt);
    assertThat(RequestRouters.readsPrompt(PromptFirst.class.getName())).isTrue();
    assertThat(RequestRouters.readsPrompt(FirstOnly.class.getName())).isFalse();
    assertThat(RequestRouters.readsPrompt(PromptButNoRouter.class.getName())).isFalse();
    assertThat(RequestRouters.readsPrompt("com.example.NotOnThisNode")).isFalse();
    assertThat(RequestRouters.readsPrompt("fastest")).isFalse();
  }

  @Test
  void askingWhetherAnOutsidePolicyReadsThePromptRunsNoneOfItsCode() {
    assertThat(RequestRouters.readsPrompt(NotARouter.class.getName())).isFalse();
    assertThat(Initialized.RAN).as("NotARouter's static initializer ran").isFalse();
  }
}
