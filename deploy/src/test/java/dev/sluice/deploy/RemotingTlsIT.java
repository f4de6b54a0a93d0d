package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.sluice.core.testing.Await;
import dev.sluice.core.testing.Sse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Cluster traffic over mutual TLS (sluice.cluster.tls-dir), with real nodes on loopback: nodes
 * holding certificates of the cluster's CA form the cluster; a node whose certificate another CA
 * signed, and a node without TLS, knock and are never let in. A folder that cannot work stops the
 * node at start, naming the file.
 */
class RemotingTlsIT {

  @TempDir
  static Path folder;

  /** Certificates of the cluster's CA, and of another CA (both for the subject "sluice"). */
  private static Path cluster;
  private static Path other;

  @BeforeAll
  static void issue() throws Exception {
    cluster = TestCertificates.issue(folder.resolve("cluster"), "sluice test CA", "sluice");
    other = TestCertificates.issue(folder.resolve("other"), "another CA", "sluice");
  }

  private static Config tls(Path dir) {
    return ConfigFactory.empty().withValue("sluice.cluster.tls-dir",
        ConfigValueFactory.fromAnyRef(dir.toString())).withFallback(TestNodes.overrides());
  }

  private static SluiceNode start(Role role, List<String> seeds, Config config) throws Exception {
    return SluiceNode.start(new NodeOptions(Set.of(role), Optional.empty(), Optional.empty(),
        seeds, role == Role.CONTROL
            ? Optional.of(TestNodes.appFile(TestNodes.app(0, 0, 2, 8))) : Optional.empty(),
        config));
  }

  private static long up(SluiceNode node) {
    return StreamSupport.stream(Cluster.get(node.system().classicSystem()).state().getMembers()
        .spliterator(), false).map(Member::status).filter(MemberStatus.up()::equals).count();
  }

  @Test
  void onlyNodesWithCertificatesOfTheClusterCaJoin() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    root.addAppender(log);
    List<SluiceNode> nodes = new ArrayList<>();
    try {
      SluiceNode control = start(Role.CONTROL, List.of(), tls(cluster));
      nodes.add(control);
      List<String> seed = List.of("127.0.0.1:" + control.system().address().getPort().get());
      nodes.add(start(Role.REPLICA, seed, tls(cluster)));
      Await.until(Duration.ofSeconds(30), "both nodes of the cluster's CA Up",
          () -> up(control) == 2);
      assertThat(Sse.json(TestNodes.get(control.apiPort().orElseThrow(), "/api/cluster")
          .body()).path("transport").asText()).isEqualTo("tls-tcp");

      SluiceNode intruder = start(Role.REPLICA, seed, tls(other));
      nodes.add(intruder);
      SluiceNode plain = start(Role.REPLICA, seed, TestNodes.overrides());
      nodes.add(plain);
      for (SluiceNode outsider : List.of(intruder, plain)) {
        String self = "Cluster Node [" + outsider.system().address() + "] - Couldn't join seed "
            + "nodes";
        Await.until(Duration.ofSeconds(30), "the outsider's join attempts failed", () ->
            List.copyOf(log.list).stream().anyMatch(event ->
                event.getFormattedMessage().startsWith(self)));
      }
      assertThat(List.copyOf(log.list)).anySatisfy(event -> assertThat(
          event.getFormattedMessage()).contains("SSLHandshakeException"));
      assertThat(up(control)).isEqualTo(2);
      assertThat(up(intruder)).isZero();
      assertThat(up(plain)).isZero();
    } finally {
      root.detachAppender(log);
      for (int i = nodes.size() - 1; i >= 0; i--) {
        nodes.get(i).close();
      }
    }
  }

  @Test
  void aFolderThatCannotWorkStopsTheNodeAtStartNamingTheFile() throws Exception {
    Path mixed = Files.createDirectories(folder.resolve("mixed"));
    Files.copy(cluster.resolve("tls.key"), mixed.resolve("tls.key"));
    Files.copy(cluster.resolve("tls.crt"), mixed.resolve("tls.crt"));
    Files.copy(other.resolve("ca.crt"), mixed.resolve("ca.crt"));
    assertThatThrownBy(() -> start(Role.REPLICA, List.of(), tls(mixed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mixed.resolve("tls.crt") + " is not signed by ca.crt (CN=another CA)");

    Files.copy(other.resolve("tls.crt"), mixed.resolve("tls.crt"),  // of another key
        StandardCopyOption.REPLACE_EXISTING);
    assertThatThrownBy(() -> start(Role.REPLICA, List.of(), tls(mixed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mixed.resolve("tls.crt") + " is not the certificate of tls.key");

    Files.delete(mixed.resolve("tls.key"));
    assertThatThrownBy(() -> start(Role.REPLICA, List.of(), tls(mixed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mixed.resolve("tls.key") + " is missing or unreadable")
        .hasMessageNotContaining("not an unencrypted");

    Files.writeString(mixed.resolve("tls.key"), "not a key");
    assertThatThrownBy(() -> start(Role.REPLICA, List.of(), tls(mixed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mixed.resolve("tls.key") + " is not an unencrypted RSA private key");

    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(256);
    Files.writeString(mixed.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder().encodeToString(ec.generateKeyPair().getPrivate().getEncoded())
        + "\n-----END PRIVATE KEY-----\n");
    assertThatThrownBy(() -> start(Role.REPLICA, List.of(), tls(mixed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(mixed.resolve("tls.key") + " is not an unencrypted RSA private key");
  }
}
