package dev.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {

  private static final ActorTestKit testKit = ActorTestKit.create();
  private static final Materializer materializer = Materializer.matFromSystem(testKit.system());
  private static final Duration LONG = Duration.ofSeconds(30);
  private static final String FAIL = "(fail here)";

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static Source<ByteString, NotUsed> chunks(String... pieces) {
    return Source.from(List.of(pieces)).map(ByteString::fromString);
  }

  private static BoundedBody read(Source<ByteString, ?> bytes, OptionalLong declared, long limit)
      throws Exception {
    return BoundedBody.read(bytes, declared, limit, LONG, materializer)
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void aBodyWithinTheLimitIsKeptWhole() throws Exception {
    BoundedBody body = read(chunks("{\"a\":", "1}"), OptionalLong.of(7), 7);

    assertThat(body.tooLarge()).isFalse();
    assertThat(body.bytes().utf8String()).isEqualTo("{\"a\":1}");
  }

  @Test
  void aLongerBodyIsReadToItsEndKeepingOnlyTheLimit() throws Exception {
    AtomicInteger pulled = new AtomicInteger();
    BoundedBody body = read(chunks("abcd", "efgh", "ijkl", "mnop").map(bytes -> {
      pulled.incrementAndGet();
      return bytes;
    }), OptionalLong.empty(), 6);

    assertThat(body.tooLarge()).isTrue();
    assertThat(pulled).hasValue(4);
    assertThat(body.bytes().utf8String()).isEqualTo("abcdef");
    assertThat(body.tooLargeError().status()).isEqualTo(413);
    assertThat(body.tooLargeError().getMessage())
        .isEqualTo("The request body is over the limit of 6 bytes");
  }

  @Test
  void aContentLengthOverTheLimitIsTooLargeEvenIfTheServerCutsTheBodyOff() throws Exception {
    BoundedBody body = read(failingAfter("cut off by the server"), OptionalLong.of(100), 10);

    assertThat(body.tooLarge()).isTrue();
    assertThat(body.tooLargeError().getMessage())
        .isEqualTo("The request body is 100 bytes; the limit is 10");
  }

  /** The pieces, then a failure with {@code message} (as a connection lost or cut off). */
  private static Source<ByteString, NotUsed> failingAfter(String message, String... pieces) {
    List<String> all = new java.util.ArrayList<>(List.of(pieces));
    all.add(FAIL);
    return Source.from(all).map(piece -> {
      if (piece.equals(FAIL)) {
        throw new IllegalStateException(message);
      }
      return ByteString.fromString(piece);
    });
  }

  @Test
  void aFailureAfterTheLimitIsTooLargeAndOneBeforeItIsTheFailure() throws Exception {
    assertThat(read(failingAfter("cut off", "abcdefgh"), OptionalLong.empty(), 4).tooLarge())
        .isTrue();

    assertThatThrownBy(() -> read(failingAfter("connection closed", "ab"), OptionalLong.empty(),
        4))
        .isInstanceOf(ExecutionException.class)
        .hasRootCauseMessage("connection closed");
  }

  @Test
  void aStalledBodyTimesOutWithoutCancellingTheRead() throws Exception {
    CompletableFuture<Done> terminated = new CompletableFuture<>();
    Source<ByteString, ?> stalled = chunks("{\"model\":").concat(Source.never())
        .watchTermination((mat, done) -> {
          done.whenComplete((d, failure) -> terminated.complete(Done.getInstance()));
          return mat;
        });

    CompletableFuture<BoundedBody> read = BoundedBody.read(stalled, OptionalLong.of(100), 100,
        Duration.ofSeconds(1), materializer).toCompletableFuture();

    assertThatThrownBy(() -> read.get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(TimeoutException.class)
        .hasMessageContaining("did not arrive within 1 s");
    // Pekko HTTP aborts the connection of an entity cancelled early: the server closes it after
    // the answer instead, which ends the read.
    assertThat(terminated).isNotDone();
  }

  @Test
  void aBodyTooLargeThatKeepsComingIsTakenAfterTheLingerNotTimedOut() throws Exception {
    CompletableFuture<Done> terminated = new CompletableFuture<>();
    Source<ByteString, ?> endless = Source.tick(Duration.ZERO, Duration.ofMillis(10),
            ByteString.fromString("abcdefgh"))
        .watchTermination((mat, done) -> {
          done.whenComplete((d, failure) -> terminated.complete(Done.getInstance()));
          return mat;
        });
    long started = System.nanoTime();

    BoundedBody body = BoundedBody.read(endless, OptionalLong.empty(), 20, LONG, materializer)
        .toCompletableFuture().get(20, TimeUnit.SECONDS);

    assertThat(body.tooLarge()).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isGreaterThanOrEqualTo(BoundedBody.LINGER).isLessThan(LONG);
    assertThat(terminated).isNotDone();  // still read until the server closes the connection
  }

  @Test
  void aTooLargeBodyTheClientHoldsBackFor100ContinueIsNeverRead() throws Exception {
    AtomicInteger pulled = new AtomicInteger();
    Source<ByteString, NotUsed> body = chunks("abcd").map(bytes -> {
      pulled.incrementAndGet();
      return bytes;
    });
    HttpRequest expecting = HttpRequest.PUT("/api/applications")
        .addHeader(RawHeader.create("Expect", "100-continue"))
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, 1L << 40, body));

    BoundedBody read = BoundedBody.read(expecting, 10, LONG, materializer)
        .toCompletableFuture().getNow(null);
    BoundedBody withinLimit = BoundedBody.read(expecting.withEntity(
            HttpEntities.create(ContentTypes.APPLICATION_JSON, 4, body)), 10, LONG, materializer)
        .toCompletableFuture().get(30, TimeUnit.SECONDS);

    assertThat(read).isNotNull();
    assertThat(read.tooLarge()).isTrue();
    assertThat(read.tooLargeError().getMessage())
        .isEqualTo("The request body is " + (1L << 40) + " bytes; the limit is 10");
    assertThat(withinLimit.bytes().utf8String()).isEqualTo("abcd");
    assertThat(pulled).hasValue(1);  // only the body within the limit was read
  }

  @Test
  void aBodyPekkoHoldsWholeIsTakenAtOnceAndCheckedTheSameWay() throws Exception {
    BoundedBody within = BoundedBody.read(HttpEntities.create(ContentTypes.APPLICATION_JSON,
        "{\"a\":1}"), 7, LONG, materializer).toCompletableFuture().getNow(null);
    BoundedBody over = BoundedBody.read(HttpEntities.create(ContentTypes.APPLICATION_JSON,
        "{\"a\":12}"), 7, LONG, materializer).toCompletableFuture().getNow(null);

    assertThat(within.tooLarge()).isFalse();
    assertThat(within.bytes().utf8String()).isEqualTo("{\"a\":1}");
    assertThat(over.tooLarge()).isTrue();
    assertThat(over.tooLargeError().getMessage())
        .isEqualTo("The request body is 8 bytes; the limit is 7");
  }

  @Test
  void theServerCapIsFourTimesTheLimitWithoutOverflowing() {
    assertThat(BoundedBody.serverCap(8 << 20)).isEqualTo(32L << 20);
    assertThat(BoundedBody.serverCap(Long.MAX_VALUE / 2)).isEqualTo(Long.MAX_VALUE);
  }
}
