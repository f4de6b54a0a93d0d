package dev.sluice.ingress;

import dev.sluice.ingress.edge.Answer;
import dev.sluice.ingress.edge.HeaderField;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;

/** An {@link Answer} made here, as the relayed path's Pekko HTTP server sends it. */
final class PekkoAnswers {

  private PekkoAnswers() {}

  static HttpResponse response(Answer answer) {
    List<HttpHeader> headers = new ArrayList<>(answer.headers().size());
    for (HeaderField field : answer.headers()) {
      headers.add(RawHeader.create(field.name(), field.value()));
    }
    ContentType type = answer.contentType().equals(Answer.JSON)
        ? ContentTypes.APPLICATION_JSON : ContentTypes.TEXT_PLAIN_UTF8;
    return HttpResponse.create().withStatus(answer.status()).withHeaders(headers)
        .withEntity(HttpEntities.create(type, answer.body()));
  }
}
