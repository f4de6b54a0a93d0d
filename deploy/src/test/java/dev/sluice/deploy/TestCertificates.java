package dev.sluice.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A folder laid out as a Kubernetes TLS secret ({@code tls.key}, {@code tls.crt},
 * {@code ca.crt}), made with the JDK's own keytool: a CA of its own signs a node certificate.
 */
final class TestCertificates {

  private static final String PASSWORD = "test-only";

  private TestCertificates() {}

  /**
   * A new CA named {@code caName} and a certificate for {@code subject} it signed, with these
   * subject alternative names if any ({@code ip:127.0.0.1}, {@code dns:localhost}).
   */
  static Path issue(Path folder, String caName, String subject, String... alternativeNames)
      throws Exception {
    Files.createDirectories(folder);
    Path ca = folder.resolve("ca.p12");
    Path node = folder.resolve("node.p12");
    Path request = folder.resolve("node.csr");
    keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname",
        "CN=" + caName, "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString(),
        "-storetype", "PKCS12", "-storepass", PASSWORD);
    keytool("-genkeypair", "-alias", "node", "-keyalg", "RSA", "-keysize", "2048", "-dname",
        "CN=" + subject, "-validity", "2", "-keystore", node.toString(), "-storetype", "PKCS12",
        "-storepass", PASSWORD);
    keytool("-certreq", "-alias", "node", "-keystore", node.toString(), "-storepass", PASSWORD,
        "-file", request.toString());
    List<String> sign = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore",
        ca.toString(), "-storepass", PASSWORD, "-infile", request.toString(), "-outfile",
        folder.resolve("tls.crt").toString(), "-rfc", "-validity", "2"));
    if (alternativeNames.length > 0) {
      sign.addAll(List.of("-ext", "san=" + String.join(",", alternativeNames)));
    }
    keytool(sign.toArray(new String[0]));
    keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-storepass", PASSWORD,
        "-rfc", "-file", folder.resolve("ca.crt").toString());
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(node)) {
      store.load(in, PASSWORD.toCharArray());
    }
    byte[] key = store.getKey("node", PASSWORD.toCharArray()).getEncoded();  // PKCS#8
    Files.writeString(folder.resolve("tls.key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(key) + "\n-----END PRIVATE KEY-----\n");
    return folder;
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("keytool " + String.join(" ", args) + ": " + output);
    }
  }
}
