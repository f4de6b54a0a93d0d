package dev.sluice.core.http;

import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.ParsingErrorHandler;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.http.scaladsl.model.ErrorInfo;
import org.apache.pekko.http.scaladsl.model.StatusCode;

/**
 * Pekko HTTP's answer to a request its parser refuses (a control byte in a header value, a
 * target too long, an unknown method), in the OpenAI error shape every other answer of Sluice
 * has, instead of Pekko's {@code text/plain}. Such requests reach Pekko's servers through a
 * proxy that lets them by (HAProxy passes control bytes in values on to a replica's endpoint),
 * or straight from a client (the relayed ingress, the controller's API). Pekko closes the
 * connection after it.
 */
public final class OpenAiParsingErrors extends ParsingErrorHandler {

  /** The instance Pekko looks up by class name (the field a Scala object has). */
  public static final OpenAiParsingErrors MODULE$ = new OpenAiParsingErrors();

  private OpenAiParsingErrors() {}

  /** {@code settings} answering parse errors with this handler. */
  public static ServerSettings applyTo(ServerSettings settings) {
    return settings.withParsingErrorHandler(OpenAiParsingErrors.class.getName());
  }

  @Override
  public HttpResponse handle(StatusCode status, ErrorInfo info, LoggingAdapter log,
      org.apache.pekko.http.scaladsl.settings.ServerSettings settings) {
    // Hostile clients can send these at any rate: not a warning per request.
    if (log.isDebugEnabled()) {
      log.debug("Refused a request Pekko HTTP could not parse: {} {}", status.intValue(),
          info.summary());
    }
    ApiError error = new ApiError(code(status.intValue()), info.summary(), null);
    return HttpResponse.create().withStatus(status.intValue())
        .withEntity(ContentTypes.APPLICATION_JSON, error.toJson());
  }

  static ApiError.Code code(int status) {
    return switch (status) {
      case 408 -> ApiError.Code.REQUEST_TIMEOUT;
      case 413 -> ApiError.Code.PAYLOAD_TOO_LARGE;
      case 414 -> ApiError.Code.URI_TOO_LONG;
      case 431 -> ApiError.Code.HEADERS_TOO_LARGE;
      case 501 -> ApiError.Code.NOT_IMPLEMENTED;
      case 505 -> ApiError.Code.HTTP_VERSION_NOT_SUPPORTED;
      default -> status >= 500 ? ApiError.Code.INTERNAL : ApiError.Code.INVALID_REQUEST;
    };
  }
}
