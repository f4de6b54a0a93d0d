package dev.sluice.deploy.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.http.Bearer;
import dev.sluice.core.testing.RawHttp;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API-key and cluster-token parts of the rendered config, checked by the real HAProxy. */
class HaproxyConfigTest {

  private static RenderSettings settings(String token) {
    return new RenderSettings("127.0.0.1", 8080, "127.0.0.1", 8500, 5, token,
        "x-session-id", Map.of("/", "llm"));
  }

  @Test
  void manyKeysAreSplitOverAclLinesHaproxyAccepts(@TempDir Path dir) throws Exception {
    List<String> digests = new ArrayList<>();
    for (int i = 0; i < 45; i++) {
      digests.add(HexFormat.of().formatHex(Bearer.digest("key-" + i)));
    }
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    String config = HaproxyConfig.render(settings("token-1").withApiKeys(true, digests),
        List.of(new HaproxyConfig.Replica("llm#sim#a", "127.0.0.1", 30000)), lua);

    List<String> acls = config.lines().filter(l -> l.startsWith("  acl sluice_api_key ")).toList();
    assertThat(acls).hasSize(3);
    assertThat(config.lines()).allSatisfy(line -> assertThat(line.length()).isLessThan(2048));
    for (String digest : digests) {
      assertThat(config.split(digest, -1)).as(digest).hasSize(2);
    }
    assertThat(config).doesNotContain("key-0").contains("set-header authorization")
        .doesNotContain("del-header authorization");
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    HaproxyProcess.check(HaproxyBinary.locate("haproxy"), file);
  }

  @Test
  void haproxysOwnAnswersAreErrorFilesInTheIngresssShape(@TempDir Path dir) throws Exception {
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    String config = HaproxyConfig.render(settings(""), List.of(), lua);

    assertThat(config).doesNotContain("http-error");
    for (int status : new int[] {400, 408, 413, 422, 500, 501, 502, 503, 504}) {
      Path page = dir.resolve("sluice_error_" + status + ".http");
      assertThat(config).contains("  errorfile " + status + " \"" + page + "\"\n");
      RawHttp.Response answer = RawHttp.response(new ByteArrayInputStream(
          Files.readAllBytes(page)));
      assertThat(answer.status()).isEqualTo(status);
      assertThat(answer.header("connection")).isEqualTo("close");
      if (status == 503) {
        assertThat(answer.header("x-serve-reason")).isEqualTo("replica_unreachable");
        assertThat(answer.body()).isEqualTo("Ingress request router failed: replica_unreachable");
      } else {
        assertThat(answer.header("content-type")).isEqualTo("application/json");
        assertThat(new ObjectMapper().readTree(answer.body()).at("/error/message").asText())
            .isNotEmpty();
      }
    }
  }

  /** HAProxy holds a client to the ingress's defaults: a slow reader holds a slot no longer. */
  @Test
  void withoutKeysNothingIsCheckedAndWithoutATokenTheClientsCredentialsAreDropped() {
    String config = HaproxyConfig.render(settings(""), List.of(), Path.of("x.lua"));
    assertThat(config).doesNotContain("sluice_api_key").doesNotContain("status 401")
        .contains("  http-request del-header authorization if "
            + "!{ var(txn.sluice_via_ingress) -m found }\n");
  }

  @Test
  void keysRequiredButNoneKnownRefuseEveryRequest(@TempDir Path dir) throws Exception {
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    String config = HaproxyConfig.render(settings("").withApiKeys(true, List.of()), List.of(),
        lua);
    assertThat(config).doesNotContain("acl sluice_api_key").contains(
        "\"Incorrect API key provided\",\"type\":\"invalid_request_error\",\"param\":null,"
            + "\"code\":\"invalid_api_key\"}}' hdr www-authenticate Bearer\n");
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    HaproxyProcess.check(HaproxyBinary.locate("haproxy"), file);
  }

  @Test
  void routePrefixesNameTheApplicationLongestFirstAndMarkThoseWithSeveralModels(
      @TempDir Path dir) throws Exception {
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    String config = HaproxyConfig.render(settings("").withRoutes(Map.of("/", "llm", "/chat",
        "chat", "/chat/v1.team", "team")).withModels(Map.of("chat", List.of("b", "a"),
            "team", List.of("t"), "llm", List.of("it's"), "gone", List.of("x", "y"))),
        List.of(), lua);
    String found = "!{ var(txn.sluice_app) -m found }";
    assertThat(config).contains("  http-request set-var(txn.sluice_app) str(team) if " + found
        + " { path /chat/v1.team } || " + found + " { path_beg /chat/v1.team/ }\n"
        + "  http-request set-var(txn.sluice_app) str(chat) if " + found
        + " { path /chat } || " + found + " { path_beg /chat/ }\n"
        + "  http-request set-var(txn.sluice_app) str(llm) if " + found + "\n")
        .contains("  http-request replace-path ^/chat/v1[.]team(/.*)$ \\1 if "
            + "{ var(txn.sluice_app) -m str team } !{ var(txn.sluice_via_ingress) -m found }\n")
        .contains("  http-request set-var(txn.sluice_several_models) bool(true) if "
            + "{ var(txn.sluice_app) -m str chat }\n")
        .doesNotContain("set-var(txn.sluice_several_models) bool(true) if "
            + "{ var(txn.sluice_app) -m str team }")
        .contains("  http-request return status 200 content-type application/json string '"
            + "{\"object\":\"list\",\"data\":[{\"id\":\"a\",\"object\":\"model\",\"created\":0,"
            + "\"owned_by\":\"sluice\"},{\"id\":\"b\",\"object\":\"model\",\"created\":0,"
            + "\"owned_by\":\"sluice\"}]}' if METH_GET { var(txn.sluice_app) -m str chat } "
            + "{ path /v1/models }\n")
        .contains("if METH_GET { var(txn.sluice_app) -m str team } { path /v1/models/t }\n")
        .doesNotContain("str gone").doesNotContain("it's");
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    HaproxyProcess.check(HaproxyBinary.locate("haproxy"), file);
    assertThatThrownBy(() -> settings("").withRoutes(Map.of("/chat/", "chat")))
        .hasMessageContaining("route prefix /chat/ of application chat");
  }

  /**
   * Every part of the config at once (keys, the cluster token, route prefixes, several models,
   * an external engine's port, the node's ingress, the metrics frontend) loads without a
   * warning: HAProxy logs each one again on every reload, into the node's log.
   */
  @Test
  void aWholeConfigLoadsWithoutAWarning(@TempDir Path dir) throws Exception {
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    RenderSettings whole = settings("token-1")
        .withApiKeys(true, List.of(HexFormat.of().formatHex(Bearer.digest("key-1"))))
        .withRoutes(Map.of("/chat", "chat", "/", "llm"))
        .withModels(Map.of("chat", List.of("a", "b"), "llm", List.of("c")))
        .withForwardBodyLimit(4096)
        .withIngress("127.0.0.1", 8000);
    String config = HaproxyConfig.render(whole, List.of(
        new HaproxyConfig.Replica("chat#a#1", "127.0.0.1", 30000),
        new HaproxyConfig.Replica("llm#c#1", "127.0.0.1", 30101, 30001)), lua)
        + HaproxyConfig.metricsFrontend("127.0.0.1", 9101);
    Path file = dir.resolve("haproxy.cfg");
    Files.writeString(file, config);
    Process check = new ProcessBuilder(HaproxyBinary.locate("haproxy").path().toString(), "-c",
        "-f", file.toString()).redirectErrorStream(true).start();
    String output = new String(check.getInputStream().readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertThat(check.waitFor()).as(output).isZero();
    assertThat(output).doesNotContain("WARNING").doesNotContain("ALERT");
  }

  @Test
  void aDigestThatIsNotOneIsRefused() {
    assertThatThrownBy(() -> settings("").withApiKeys(true, List.of("key-1")))
        .hasMessage("an API key digest is not 64 lowercase hex digits");
  }

  @Test
  void applicationsRoutedByThePromptAreMarkedOnlyWhileBodyForwardingIsOff(@TempDir Path dir)
      throws Exception {
    Path lua = dir.resolve("sluice_route.lua");
    HaproxyConfig.writeFiles(lua);
    RenderSettings prompt = settings("").withRoutes(Map.of("/", "llm", "/chat", "chat"))
        .withPromptApps(java.util.Set.of("chat", "gone"));
    String mark = "  http-request set-var(txn.sluice_prompt_routed) bool(true) if "
        + "{ var(txn.sluice_app) -m str ";

    String off = HaproxyConfig.render(prompt, List.of(), lua);
    String on = HaproxyConfig.render(prompt.withForwardBodyLimit(1024), List.of(), lua);

    assertThat(off).contains(mark + "chat }\n").doesNotContain(mark + "llm }")
        .doesNotContain(mark + "gone }");
    assertThat(on).as("every body goes to the router anyway").doesNotContain(mark);
  }
}
