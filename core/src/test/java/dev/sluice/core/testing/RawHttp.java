package dev.sluice.core.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Reads HTTP/1.1 messages off a blocking stream, for tests that need to see exact bytes. */
public final class RawHttp {

  /** A response as received; the body de-chunked. */
  public record Response(int status, Map<String, String> headers, String body) {
    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private RawHttp() {}

  public static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        String text = line.toString(StandardCharsets.ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  /** Head fields (lowercase names) after a start line already read; null at end of stream. */
  public static Map<String, String> fields(InputStream in) throws IOException {
    Map<String, String> fields = new TreeMap<>();
    String line;
    while ((line = line(in)) != null && !line.isEmpty()) {
      int colon = line.indexOf(':');
      fields.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    return line == null ? null : fields;
  }

  /** The next response; null when the connection closed before one started. */
  public static Response response(InputStream in) throws IOException {
    return response(in, false);
  }

  /**
   * The next response; {@code toHead} for the answer to a {@code HEAD}, whose head announces a
   * body that never comes (a final answer's body is then empty).
   */
  public static Response response(InputStream in, boolean toHead) throws IOException {
    String status = line(in);
    if (status == null) {
      return null;
    }
    Map<String, String> headers = fields(in);
    int code = Integer.parseInt(status.split(" ")[1]);
    if (code == 100 || (toHead && code >= 200)) {
      return new Response(code, headers, "");
    }
    return new Response(code, headers, body(in, headers));
  }

  /** A request's or response's body, by Content-Length or chunked framing. */
  public static String body(InputStream in, Map<String, String> headers) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      while (true) {
        String size = line(in);
        if (size == null) {
          throw new IOException("connection closed inside a chunked body");
        }
        int length = Integer.parseInt(size.split(";")[0].trim(), 16);
        if (length == 0) {
          fields(in);
          break;
        }
        body.write(in.readNBytes(length));
        line(in);
      }
    } else if (headers.containsKey("content-length")) {
      int length = Integer.parseInt(headers.get("content-length"));
      byte[] bytes = in.readNBytes(length);
      if (bytes.length < length) {
        throw new IOException("connection closed inside the body");
      }
      body.write(bytes);
    } else {
      body.write(in.readAllBytes());
    }
    return body.toString(StandardCharsets.UTF_8);
  }
}
