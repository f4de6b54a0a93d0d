package dev.sluice.ingress;

import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/**
 * The ingress's answer when it cannot route: 503, {@code text/plain}, {@code Ingress request router
 * failed: <reason>} and {@code X-Serve-Reason}. Never a silent detour down an unchosen path.
 */
final class FailClosed {

  /** The reason in words (which deployment, what timed out), for operators. */
  static final String DETAIL_HEADER = "x-sluice-detail";

  private FailClosed() {}

  static HttpResponse response(ServeReason reason, String requestId, String detail) {
    return HttpResponse.create()
        .withStatus(503)
        .addHeader(RawHeader.create(SluiceHeaders.SERVE_REASON, reason.value()))
        .addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId))
        .addHeader(RawHeader.create(DETAIL_HEADER, detail))
        .withEntity(HttpEntities.create(ContentTypes.TEXT_PLAIN_UTF8,
            "Ingress request router failed: " + reason.value()));
  }
}
