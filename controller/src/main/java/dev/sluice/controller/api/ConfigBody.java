package dev.sluice.controller.api;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.util.ByteString;

/**
 * A config sent to the controller API, read whole. At most {@link #MAX_BYTES} are kept; a longer
 * body is still read to its end (Pekko's {@code max-content-length}, 8 MiB by default, bounds
 * that) and then refused with 413. Answering before the end and closing, as a failed {@code
 * toStrict} does, can reset the connection under the client's feet, and the client never sees
 * the 413.
 */
final class ConfigBody {

  static final int MAX_BYTES = 1 << 20;

  private ByteString kept = ByteString.emptyByteString();
  private long total;

  private ConfigBody() {}

  /** The request's body, or a failure if it stops or stalls for {@code timeout}. */
  static CompletionStage<ConfigBody> read(HttpRequest request, Duration timeout,
      Materializer materializer) {
    return request.entity().getDataBytes().completionTimeout(timeout)
        .runWith(Sink.fold(new ConfigBody(), ConfigBody::add), materializer);
  }

  private ConfigBody add(ByteString bytes) {
    total += bytes.size();
    if (kept.size() < MAX_BYTES) {
      kept = kept.concat(bytes.take(MAX_BYTES - kept.size()));
    }
    return this;
  }

  boolean tooLarge() {
    return total > MAX_BYTES;
  }

  String text() {
    return kept.utf8String();
  }
}
