package dev.sluice.ingress;

import dev.sluice.core.openai.ForwardedBody;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Body forwarding: reads at most {@code limit} bytes of a request body for the router (more only
 * by the last chunk read), without losing the rest: {@link #entity()} rebuilds the whole body,
 * the buffered prefix followed by the unread tail, for the replica.
 */
final class BodyPrefix {

  private final RequestEntity original;
  private final ByteString prefix;
  private final Source<ByteString, NotUsed> tail;
  private final boolean complete;
  private final int limit;

  private BodyPrefix(RequestEntity original, ByteString prefix, Source<ByteString, NotUsed> tail,
      boolean complete, int limit) {
    this.original = original;
    this.prefix = prefix;
    this.tail = tail;
    this.complete = complete;
    this.limit = limit;
  }

  static CompletionStage<BodyPrefix> read(RequestEntity entity, int limit, Materializer mat) {
    if (entity.isStrict()) {
      ByteString data = ((org.apache.pekko.http.javadsl.model.HttpEntity.Strict) entity).getData();
      return CompletableFuture.completedFuture(
          new BodyPrefix(entity, data, Source.empty(), true, limit));
    }
    return accumulate(entity, entity.getDataBytes().mapMaterializedValue(m -> NotUsed.getInstance()),
        ByteString.emptyByteString(), limit, mat);
  }

  private static CompletionStage<BodyPrefix> accumulate(RequestEntity entity,
      Source<ByteString, NotUsed> source, ByteString read, int limit, Materializer mat) {
    return source.prefixAndTail(1).runWith(Sink.head(), mat).thenComposeAsync(split -> {
      if (split.first().isEmpty()) {
        return CompletableFuture.completedFuture(
            new BodyPrefix(entity, read, Source.empty(), true, limit));
      }
      ByteString more = read.concat(split.first().get(0));
      if (more.size() > limit) {
        return CompletableFuture.completedFuture(
            new BodyPrefix(entity, more, split.second(), false, limit));
      }
      return accumulate(entity, split.second(), more, limit, mat);
    }, mat.executionContext());
  }

  /** What the router gets: the first {@code limit} bytes and the total length if known. */
  ForwardedBody forRouter() {
    if (complete) {
      return ForwardedBody.cut(prefix.toArray(), limit);
    }
    return new ForwardedBody(prefix.take(limit).toArray(),
        original.getContentLengthOption().orElse(-1));
  }

  /** The whole body again, for the replica. */
  RequestEntity entity() {
    if (complete) {
      return HttpEntities.create(original.getContentType(), prefix);
    }
    Source<ByteString, NotUsed> whole = Source.single(prefix).concat(tail);
    return original.getContentLengthOption().isPresent()
        ? HttpEntities.create(original.getContentType(),
            original.getContentLengthOption().getAsLong(), whole)
        : HttpEntities.createChunked(original.getContentType(), whole);
  }
}
