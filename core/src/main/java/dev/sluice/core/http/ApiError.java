package dev.sluice.core.http;

import java.util.Objects;
import java.util.Optional;

/**
 * The one error type at Sluice's HTTP edges. A closed set of {@link Code}s, each mapped to its HTTP
 * status here and nowhere else; rendered in the OpenAI error shape by {@link #toJson()}.
 */
public final class ApiError extends RuntimeException {

  /** Error codes and their HTTP status and OpenAI {@code type}. */
  public enum Code {
    INVALID_JSON(400, "invalid_request_error"),
    INVALID_REQUEST(400, "invalid_request_error"),
    /** No API key, or not a known one (the OpenAI code {@code invalid_api_key}). */
    INVALID_API_KEY(401, "invalid_request_error"),
    /** An internal endpoint called without the cluster token. */
    UNAUTHORIZED(401, "invalid_request_error"),
    REQUEST_TIMEOUT(408, "invalid_request_error"),
    MODEL_NOT_FOUND(404, "invalid_request_error"),
    NOT_FOUND(404, "invalid_request_error"),
    METHOD_NOT_ALLOWED(405, "invalid_request_error"),
    /** A body without a Content-Length where one is required. */
    LENGTH_REQUIRED(411, "invalid_request_error"),
    PAYLOAD_TOO_LARGE(413, "invalid_request_error"),
    URI_TOO_LONG(414, "invalid_request_error"),
    UNSUPPORTED_MEDIA_TYPE(415, "invalid_request_error"),
    /** A transfer coding other than chunked (HAProxy's answer to one). */
    UNPROCESSABLE_CONTENT(422, "invalid_request_error"),
    HEADERS_TOO_LARGE(431, "invalid_request_error"),
    OVERLOADED(503, "server_error"),
    /** A component it depends on (the controller singleton, say) cannot answer now. */
    UNAVAILABLE(503, "server_error"),
    UPSTREAM_FAILED(502, "server_error"),
    UPSTREAM_TIMEOUT(504, "server_error"),
    INTERNAL(500, "server_error"),
    /** A method or framing the server does not implement. */
    NOT_IMPLEMENTED(501, "invalid_request_error"),
    HTTP_VERSION_NOT_SUPPORTED(505, "invalid_request_error");

    private final int status;
    private final String type;

    Code(int status, String type) {
      this.status = status;
      this.type = type;
    }

    public int status() {
      return status;
    }

    public String type() {
      return type;
    }

    /** The OpenAI {@code code} field: the enum name in lowercase. */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final Code code;
  private final String param;

  public ApiError(Code code, String message, String param) {
    super(Objects.requireNonNull(message, "message"), null, false, false);
    this.code = Objects.requireNonNull(code, "code");
    this.param = param;
  }

  public static ApiError invalid(String param, String message) {
    return new ApiError(Code.INVALID_REQUEST, message, param);
  }

  public Code code() {
    return code;
  }

  public int status() {
    return code.status();
  }

  public Optional<String> param() {
    return Optional.ofNullable(param);
  }

  /** {@code {"error":{"message","type","param","code"}}} */
  public String toJson() {
    StringBuilder json = new StringBuilder(96 + getMessage().length());
    json.append("{\"error\":{\"message\":");
    JsonText.appendQuoted(json, getMessage());
    json.append(",\"type\":\"").append(code.type()).append("\",\"param\":");
    if (param == null) {
      json.append("null");
    } else {
      JsonText.appendQuoted(json, param);
    }
    json.append(",\"code\":\"").append(code.wireName()).append("\"}}");
    return json.toString();
  }
}
