package dev.sluice.deploy.haproxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HaproxyProcessTest {

  @Test
  void readsTheServerNamesOfShowServersState() {
    String state = """
        1
        # be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight
        3 sluice_replicas 1 llm-sim-abcd1234 127.0.0.1 2 0 1 1 4 6 3 4 6 0 0 0 - 30000 - 0
        3 sluice_replicas 2 llm-sim-efgh5678 127.0.0.1 2 0 1 1 4 6 3 4 6 0 0 0 - 30001 - 0

        """;
    assertThat(HaproxyProcess.serverNames(state))
        .containsExactly("llm-sim-abcd1234", "llm-sim-efgh5678");
  }

  @Test
  void anEmptyBackendHasNoServers() {
    assertThat(HaproxyProcess.serverNames("1\n# be_id be_name srv_id srv_name\n\n")).isEmpty();
  }
}
