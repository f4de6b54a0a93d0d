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

  @Test
  void readsEveryWorkerCurrentAndOldOfShowProc() {
    String proc = """
        #<PID>          <type>          <reloads>       <uptime>        <version>
        18057           master          2 [failed: 0]   0d00h00m19s     2.6.12-1+deb12u4
        # workers
        18423           worker          0               0d00h00m01s     2.6.12-1+deb12u4
        # old workers
        18255           worker          1               0d00h00m08s     2.6.12-1+deb12u4
        # programs

        """;
    assertThat(HaproxyProcess.workers(proc)).containsExactly("18423", "18255");
  }

  @Test
  void countsTheFrontendsStreamsOfShowSessNotTheClisOwn() {
    String sess = """
        0x5570834e59f0: proto=sockpair src=unix:1 fe=GLOBAL be=<NONE> srv=<none> ts=00 epoch=0
        0x5570834e6a10: proto=tcpv4 src=127.0.0.1:40022 fe=sluice be=sluice_replicas srv=a ts=00
        0x5570834e7b20: proto=tcpv4 src=127.0.0.1:40024 fe=sluice be=<NONE> srv=<none> ts=00

        """;
    assertThat(HaproxyProcess.streams(sess, "sluice")).isEqualTo(2);
    assertThat(HaproxyProcess.streams(sess.lines().findFirst().orElseThrow(), "sluice"))
        .isZero();
  }
}
