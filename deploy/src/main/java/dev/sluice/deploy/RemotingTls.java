package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.Map;
import org.apache.pekko.remote.artery.tcp.ssl.RotatingKeysSSLEngineProvider;

/**
 * Cluster traffic over TLS with mutual authentication ({@code sluice.cluster.tls-dir}): Pekko's
 * {@link RotatingKeysSSLEngineProvider} on a folder of PEM files laid out as a Kubernetes TLS
 * secret. The files are checked when the node starts, so a wrong folder stops the node with a
 * sentence naming the file, not with handshakes failing later on every connection.
 */
final class RemotingTls {

  static final String KEY = TlsFolder.KEY;
  static final String CERTIFICATE = TlsFolder.CERTIFICATE;
  static final String CA = TlsFolder.CA;

  private RemotingTls() {}

  /** Pekko settings for the folder configured, or none when it is not set. */
  static Config pekkoSettings(Config config) {
    String dir = config.getString("sluice.cluster.tls-dir");
    if (dir.isBlank()) {
      return ConfigFactory.empty();
    }
    Path folder = Path.of(dir).toAbsolutePath();
    check(folder);
    String engine = "pekko.remote.artery.ssl.rotating-keys-engine.";
    return ConfigFactory.parseMap(Map.of(
        "pekko.remote.artery.transport", "tls-tcp",
        "pekko.remote.artery.ssl.ssl-engine-provider",
        RotatingKeysSSLEngineProvider.class.getName(),
        engine + "key-file", folder.resolve(KEY).toString(),
        engine + "cert-file", folder.resolve(CERTIFICATE).toString(),
        engine + "ca-cert-file", folder.resolve(CA).toString()));
  }

  /** The key loads, and the certificate is its own, current and signed by the CA. */
  static void check(Path folder) {
    new TlsFolder("sluice.cluster.tls-dir (SLUICE_REMOTING_TLS_DIR)", folder,
        KEY + ", " + CERTIFICATE + " and " + CA + " in PEM").check(true);
  }
}
