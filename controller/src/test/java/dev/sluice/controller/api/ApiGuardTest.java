package dev.sluice.controller.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/** What opens the controller API, by which tokens are set. */
class ApiGuardTest {

  private static ApiGuard guard(String clusterToken, String apiToken) {
    Config config = ConfigFactory.parseString("""
        sluice.core.cluster-token = "%s"
        sluice.controller.api.token = "%s"
        """.formatted(clusterToken, apiToken));
    return ApiGuard.fromConfig(config);
  }

  @Test
  void withNoTokenEveryoneIsAdmitted() {
    ApiGuard open = guard("", "");
    assertThat(open.credential()).isEqualTo(ApiGuard.Credential.NONE);
    assertThat(open.admits(null)).isTrue();
    assertThat(open.admits("Bearer anything")).isTrue();
  }

  @Test
  void withOnlyTheClusterTokenItOpensTheApi() {
    ApiGuard guard = guard("cluster-1", "");
    assertThat(guard.credential()).isEqualTo(ApiGuard.Credential.CLUSTER_TOKEN);
    assertThat(guard.admits("Bearer cluster-1")).isTrue();
    assertThat(guard.admits(null)).isFalse();
    assertThat(guard.admits("Bearer cluster-2")).isFalse();
    assertThat(guard.refusalJson()).contains("needs the cluster token").doesNotContain("cluster-1");
  }

  @Test
  void withAnApiTokenOnlyItOpensTheApi() {
    ApiGuard guard = guard("cluster-1", " api-1 ");
    assertThat(guard.credential()).isEqualTo(ApiGuard.Credential.API_TOKEN);
    assertThat(guard.admits("Bearer api-1")).isTrue();
    assertThat(guard.admits("bearer api-1")).isTrue();
    assertThat(guard.admits("Bearer cluster-1")).isFalse();
    assertThat(guard.admits("Basic YXBpLTE=")).isFalse();
    assertThat(guard.admits(null)).isFalse();
    assertThat(guard.refusalJson()).contains("sluice.controller.api.token")
        .doesNotContain("api-1");
    assertThat(guard("", "api-1").admits("Bearer api-1")).isTrue();
    assertThat(guard.toString()).doesNotContain("api-1");
  }

  @Test
  void anApiTokenThatCannotTravelOrIsTheClusterTokenIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> guard("", "two words"))
        .hasMessage("sluice.controller.api.token: has a character that cannot travel in a header "
            + "(expected: printable ASCII without spaces or commas; several separated by commas)");
    assertThatThrownBy(() -> guard("", "new-1,,old-1"))
        .hasMessageStartingWith("sluice.controller.api.token: an empty token (expected:");
    assertThatThrownBy(() -> guard("same", "same"))
        .hasMessageStartingWith("sluice.controller.api.token: the same as "
            + "sluice.core.cluster-token");
    assertThatThrownBy(() -> guard("same", "new-1, same"))
        .hasMessageStartingWith("sluice.controller.api.token: the same as "
            + "sluice.core.cluster-token");
  }

  @Test
  void severalApiTokensAreEachTakenWhileClientsMoveToTheNewOne() {
    ApiGuard guard = guard("cluster-1", "new-1, old-1");
    assertThat(guard.admits("Bearer new-1")).isTrue();
    assertThat(guard.admits("Bearer old-1")).isTrue();
    assertThat(guard.admits("Bearer new-1, old-1")).isFalse();
    assertThat(guard.admits("Bearer cluster-1")).isFalse();
  }
}
