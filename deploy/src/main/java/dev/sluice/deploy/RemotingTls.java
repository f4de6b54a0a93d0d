package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Map;
import org.apache.pekko.pki.pem.DERPrivateKeyLoader;
import org.apache.pekko.pki.pem.PEMDecoder;
import org.apache.pekko.remote.artery.tcp.ssl.RotatingKeysSSLEngineProvider;

/**
 * Cluster traffic over TLS with mutual authentication ({@code sluice.cluster.tls-dir}): Pekko's
 * {@link RotatingKeysSSLEngineProvider} on a folder of PEM files laid out as a Kubernetes TLS
 * secret. The files are checked when the node starts, so a wrong folder stops the node with a
 * sentence naming the file, not with handshakes failing later on every connection.
 */
final class RemotingTls {

  static final String KEY = "tls.key";
  static final String CERTIFICATE = "tls.crt";
  static final String CA = "ca.crt";

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
    String pem = read(folder, KEY);
    PrivateKey key;
    try {
      key = DERPrivateKeyLoader.load(PEMDecoder.decode(pem));
    } catch (Exception e) {  // Scala code: checked exceptions too (an EC key's, for one)
      throw refused(folder, KEY, "not an unencrypted RSA private key in PEM (PKCS#1 or PKCS#8): "
          + e.getMessage());
    }
    X509Certificate certificate = certificate(folder, CERTIFICATE);
    X509Certificate ca = certificate(folder, CA);
    if (!pairs(key, certificate)) {
      throw refused(folder, CERTIFICATE, "not the certificate of " + KEY + " (another key's)");
    }
    try {
      certificate.checkValidity();
    } catch (GeneralSecurityException e) {
      throw refused(folder, CERTIFICATE, "not valid now (from " + certificate.getNotBefore()
          + " to " + certificate.getNotAfter() + ")");
    }
    try {
      certificate.verify(ca.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw refused(folder, CERTIFICATE, "not signed by " + CA + " ("
          + ca.getSubjectX500Principal().getName() + ")");
    }
  }

  /** Whether {@code certificate} holds the public half of {@code key}: a signature checks out. */
  private static boolean pairs(PrivateKey key, X509Certificate certificate) {
    byte[] probe = "sluice".getBytes(StandardCharsets.US_ASCII);
    try {
      Signature signature = Signature.getInstance("SHA256withRSA");
      signature.initSign(key);
      signature.update(probe);
      byte[] signed = signature.sign();
      signature.initVerify(certificate.getPublicKey());
      signature.update(probe);
      return signature.verify(signed);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static X509Certificate certificate(Path folder, String file) {
    try (InputStream in = Files.newInputStream(folder.resolve(file))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException e) {
      throw refused(folder, file, "missing or unreadable (" + e.getClass().getSimpleName() + ")");
    } catch (GeneralSecurityException | ClassCastException e) {
      throw refused(folder, file, "not an X.509 certificate in PEM");
    }
  }

  private static String read(Path folder, String file) {
    try {
      return Files.readString(folder.resolve(file), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw refused(folder, file, "missing or unreadable (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static IllegalArgumentException refused(Path folder, String file, String why) {
    return new IllegalArgumentException("sluice.cluster.tls-dir (SLUICE_REMOTING_TLS_DIR): "
        + folder.resolve(file) + " is " + why + "; the folder needs " + KEY + ", " + CERTIFICATE
        + " and " + CA + " in PEM, as a Kubernetes TLS secret holds them");
  }
}
