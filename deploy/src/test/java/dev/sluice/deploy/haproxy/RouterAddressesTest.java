package dev.sluice.deploy.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The routers a HAProxy's Lua action asks, as {@code --router} and the node setting give them. */
class RouterAddressesTest {

  @Test
  void oneOrSeveralInTheirOrder() {
    assertThat(RouterAddresses.parse("--router", "10.0.0.5:8500"))
        .containsExactly(URI.create("tcp://10.0.0.5:8500"));
    List<URI> routers = RouterAddresses.parse("--router",
        "control-0.sluice:8500, 10.0.0.6:8501,::1:8502,[fd00::5]:8503");
    assertThat(routers.stream().map(RouterAddresses::hostPort))
        .containsExactly("control-0.sluice:8500", "10.0.0.6:8501", "::1:8502", "fd00::5:8503");
    assertThat(RouterAddresses.host(routers.get(3))).isEqualTo("fd00::5");
  }

  @Test
  void whatIsNotHostAndPortIsRefusedNamingTheSetting() {
    for (String bad : List.of("", "10.0.0.5", "10.0.0.5:", ":8500", "10.0.0.5:0",
        "10.0.0.5:70000", "10.0.0.5:85x", "a b:8500", "10.0.0.5:8500,", "x\"y:8500")) {
      assertThatThrownBy(() -> RouterAddresses.parse("sluice.haproxy.router", bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("sluice.haproxy.router: '")
          .hasMessageEndingWith("(expected HOST:PORT, or several separated by commas)");
    }
    assertThatThrownBy(() -> RouterAddresses.parse("--router", "10.0.0.5:8500,10.0.0.5:8500"))
        .hasMessage("--router: '10.0.0.5:8500' given twice");
  }

  @Test
  void theConfigNamesTheOthersOnlyWhenThereAreSome() {
    RenderSettings one = new RenderSettings("127.0.0.1", 8080, "10.0.0.5", 8500, 5, "",
        "x-session-id", java.util.Map.of());
    java.nio.file.Path lua = java.nio.file.Path.of("/tmp/sluice_route.lua");
    assertThat(HaproxyConfig.render(one, List.of(), lua)).doesNotContain("SLUICE_MORE_ROUTERS");
    assertThat(HaproxyConfig.render(one.withMoreRouters(List.of("10.0.0.6:8500",
        "10.0.0.7:8500")), List.of(), lua))
        .contains("  setenv SLUICE_ROUTER_HOST \"10.0.0.5\"\n  setenv SLUICE_ROUTER_PORT 8500\n"
            + "  setenv SLUICE_MORE_ROUTERS \"10.0.0.6:8500,10.0.0.7:8500\"\n");
    assertThatThrownBy(() -> one.withMoreRouters(List.of("10.0.0.6:8500\n  lua-load /x")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
