package dev.sluice.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.pekko.pki.pem.DERPrivateKeyLoader;
import org.apache.pekko.pki.pem.PEMDecoder;

/**
 * A folder of PEM files laid out as a Kubernetes TLS secret ({@code tls.key}, {@code tls.crt},
 * {@code ca.crt}), as cert-manager writes them, checked when a node starts: a key that does not
 * load, a certificate that is another key's, not valid now, or not signed by {@code ca.crt} stops
 * the node with a sentence naming the setting and the file, not with handshakes failing later.
 */
final class TlsFolder {

  static final String KEY = "tls.key";
  static final String CERTIFICATE = "tls.crt";
  static final String CA = "ca.crt";

  private final String setting;
  private final Path folder;
  private final String needs;

  /**
   * @param setting the setting that named the folder, with its env variable, for errors
   * @param needs what the folder must hold, in words, for errors
   */
  TlsFolder(String setting, Path folder, String needs) {
    this.setting = setting;
    this.folder = folder.toAbsolutePath();
    this.needs = needs;
  }

  Path file(String name) {
    return folder.resolve(name);
  }

  /**
   * Checks the key, that the certificate is its own and valid now, and that {@code ca.crt}
   * signed it: always when {@code caRequired}, else when the folder has one.
   */
  void check(boolean caRequired) {
    check(key(), chain()[0], caRequired);
  }

  private void check(PrivateKey key, X509Certificate certificate, boolean caRequired) {
    if (!pairs(key, certificate)) {
      throw refused(CERTIFICATE, "not the certificate of " + KEY + " (another key's)");
    }
    try {
      certificate.checkValidity();
    } catch (GeneralSecurityException e) {
      throw refused(CERTIFICATE, "not valid now (from " + certificate.getNotBefore() + " to "
          + certificate.getNotAfter() + ")");
    }
    if (!caRequired && !Files.exists(file(CA))) {
      return;
    }
    X509Certificate ca = (X509Certificate) certificates(CA)[0];
    try {
      certificate.verify(ca.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw refused(CERTIFICATE, "not signed by " + CA + " ("
          + ca.getSubjectX500Principal().getName() + ")");
    }
  }

  /** A server's TLS context: the key, with the certificates of {@code tls.crt} as its chain. */
  SSLContext serverContext() {
    PrivateKey key = key();
    X509Certificate[] chain = chain();
    check(key, chain[0], false);
    char[] password = "in-memory".toCharArray();
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("sluice", key, password, chain);
      KeyManagerFactory keys = KeyManagerFactory.getInstance(
          KeyManagerFactory.getDefaultAlgorithm());
      keys.init(store, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw refused(KEY, "not usable for TLS (" + e.getMessage() + ")");
    }
  }

  PrivateKey key() {
    String pem;
    try {
      pem = Files.readString(file(KEY), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw refused(KEY, "missing or unreadable (" + e.getClass().getSimpleName() + ")");
    }
    try {
      return DERPrivateKeyLoader.load(PEMDecoder.decode(pem));
    } catch (Exception e) {  // Scala code: checked exceptions too (an EC key's, for one)
      throw refused(KEY, "not an unencrypted RSA private key in PEM (PKCS#1 or PKCS#8): "
          + e.getMessage());
    }
  }

  private X509Certificate[] chain() {
    Certificate[] all = certificates(CERTIFICATE);
    X509Certificate[] chain = new X509Certificate[all.length];
    for (int i = 0; i < all.length; i++) {
      chain[i] = (X509Certificate) all[i];
    }
    return chain;
  }

  /** Every certificate of a PEM file, in order; at least one. */
  private Certificate[] certificates(String name) {
    try (InputStream in = Files.newInputStream(file(name))) {
      Collection<? extends Certificate> all =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (all.isEmpty() || !all.stream().allMatch(c -> c instanceof X509Certificate)) {
        throw refused(name, "not an X.509 certificate in PEM");
      }
      return all.toArray(new Certificate[0]);
    } catch (IOException e) {
      throw refused(name, "missing or unreadable (" + e.getClass().getSimpleName() + ")");
    } catch (GeneralSecurityException e) {
      throw refused(name, "not an X.509 certificate in PEM");
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

  private IllegalArgumentException refused(String name, String why) {
    return new IllegalArgumentException(setting + ": " + file(name) + " is " + why
        + "; the folder needs " + needs + ", as a Kubernetes TLS secret holds them");
  }
}
