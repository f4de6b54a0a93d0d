package dev.sluice.ingress;

import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.SluiceHeaders;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** The ingress's own errors in the OpenAI shape (fail-closed routing answers are {@link FailClosed}). */
final class ErrorResponses {

  private ErrorResponses() {}

  static HttpResponse of(ApiError error) {
    return HttpResponse.create().withStatus(error.status())
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, error.toJson()));
  }

  static HttpResponse of(ApiError error, String requestId) {
    return of(error).addHeader(RawHeader.create(SluiceHeaders.REQUEST_ID, requestId));
  }

  /** A chosen replica failed before its answer started (502, or 504 when it stayed silent). */
  static HttpResponse upstream(ApiError.Code code, String message, String requestId,
      String replicaId) {
    return of(new ApiError(code, message, null), requestId)
        .addHeader(RawHeader.create(SluiceHeaders.REPLICA, replicaId));
  }
}
