package dev.sluice.ingress;

import dev.sluice.core.Failures;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.ReplicaSetView;
import dev.sluice.core.http.ApiError;
import dev.sluice.core.http.BoundedBody;
import dev.sluice.core.http.RequestIds;
import dev.sluice.core.http.ServeReason;
import dev.sluice.core.http.SluiceHeaders;
import dev.sluice.core.openai.AnswerFramer;
import dev.sluice.core.openai.CompletionRequest;
import dev.sluice.core.relay.AnswerChunk;
import dev.sluice.core.relay.Generate;
import dev.sluice.core.relay.GenerateReply;
import dev.sluice.ingress.edge.Answers;
import dev.sluice.ingress.edge.EdgePolicy;
import dev.sluice.ingress.edge.UpstreamFailure;
import dev.sluice.router.LLMRouter;
import dev.sluice.router.RouterClient;
import dev.sluice.router.RoutingException;
import dev.sluice.router.Selection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * The relayed path ({@code sluice.ingress.direct-streaming = off}), kept as the control group and
 * the rollback: the router reserves a slot (choose), the request travels to the replica actor as
 * a message (dispatch), the answer's pieces come back through a stream ref and this ingress frames
 * them as the replica's own endpoint does ({@link AnswerFramer}). Same API contract and the same
 * errors as the direct path.
 */
final class RelayedPath {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(RelayedPath.class);

  private final ActorSystem<?> system;
  private final RouterClient router;
  private final ReplicaSetView view;
  private final IngressSettings settings;
  private final Materializer materializer;
  private final Executor executor;
  private final ActorRefResolver resolver;
  private final EdgePolicy edge;

  RelayedPath(ActorSystem<?> system, ActorRef<LLMRouter.Command> router, ReplicaSetView view,
      IngressSettings settings, EdgePolicy edge) {
    this.system = system;
    this.edge = edge;
    this.router = new RouterClient(system, router,
        Duration.ofMillis(edge.routeBudgetMillis()));
    this.view = view;
    this.settings = settings;
    this.materializer = Materializer.matFromSystem(system);
    this.executor = system.executionContext();
    this.resolver = ActorRefResolver.get(system);
  }

  CompletionStage<HttpResponse> forward(HttpRequest request, String requestId,
      CompletionRequest.Kind kind, Optional<String> app) {
    Optional<String> session = edge.sessionId(request.getHeaders(), HttpHeader::name,
        HttpHeader::value);
    return BoundedBody.read(request, settings.maxRequestBytes(),
            settings.splice().bodyTimeout(), materializer)
        .thenComposeAsync(read -> {
          if (read.tooLarge()) {
            throw read.tooLargeError();
          }
          byte[] body = read.bytes().toArray();
          return router.choose(edge.routeRequest(requestId, session, body,
                  LocalRoutes.routesByPrompt(view, app)).withApp(app))
              .thenComposeAsync(selection -> dispatch(selection, requestId, kind, body),
                  executor);
        }, executor)
        .exceptionallyAsync(failure -> failed(Failures.cause(failure), requestId), executor);
  }

  private CompletionStage<HttpResponse> dispatch(Selection selection, String requestId,
      CompletionRequest.Kind kind, byte[] body) {
    String replicaId = selection.replica().id().toString();
    Optional<ReplicaInfo> known = view.pick(selection.replica())
        .filter(r -> !r.actor().isEmpty());
    if (known.isEmpty()) {
      selection.close();
      return CompletableFuture.completedFuture(PekkoAnswers.response(Answers.failClosed(
          ServeReason.UNKNOWN_REPLICA_ID, requestId, "replica " + replicaId
              + " was dropped from this ingress's replica set or has no replica actor")));
    }
    ActorRef<Generate> replica = resolver.resolveActorRef(known.get().actor());
    return selection.<GenerateReply>dispatchWith(token -> AskPattern.ask(replica,
            replyTo -> new Generate(requestId, kind, body, Optional.of(token), replyTo),
            settings.routeTimeout(), system.scheduler()))
        .handleAsync((reply, failure) -> {
          if (failure != null) {
            // No answer from the replica actor: whether it started is unknown, as when a
            // replica's endpoint stays silent on the direct path.
            selection.releaseAfterFailedDispatch();
            return PekkoAnswers.response(Answers.upstreamFailed(UpstreamFailure.TIMED_OUT,
                requestId, replicaId, askFailure(Failures.cause(failure), settings.routeTimeout(),
                requestId)));
          }
          return respond(reply, selection, requestId, replicaId);
        }, executor);
  }

  private HttpResponse respond(GenerateReply reply, Selection selection, String requestId,
      String replicaId) {
    List<HttpHeader> headers = new ArrayList<>(List.of(
        RawHeader.create(SluiceHeaders.REPLICA, replicaId),
        RawHeader.create(SluiceHeaders.REQUEST_ID, requestId)));
    if (reply instanceof GenerateReply.Refused refused) {
      selection.ended();
      headers.add(RawHeader.create(SluiceHeaders.SERVED_BY, refused.replicaId()));
      refused.serveReason().ifPresent(reason ->
          headers.add(RawHeader.create(SluiceHeaders.SERVE_REASON, reason)));
      return HttpResponse.create().withStatus(refused.status()).withHeaders(headers)
          .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, refused.errorJson()));
    }
    GenerateReply.Streaming streaming = (GenerateReply.Streaming) reply;
    headers.add(RawHeader.create(SluiceHeaders.SERVED_BY, streaming.replicaId()));
    // The replica sends the answer's pieces (n choices, stop strings cut, tokens counted); they
    // are framed here as the replica's own endpoint frames them.
    CompletionRequest request = streaming.request();
    AnswerFramer framer = new AnswerFramer(request, AnswerFramer.answerId(request, requestId),
        System.currentTimeMillis() / 1000);
    Source<AnswerChunk, NotUsed> chunks = streaming.answer().getSource()
        .watchTermination((notUsed, done) -> {
          done.whenCompleteAsync((d, failure) -> selection.ended(), executor);
          return notUsed;
        });
    if (!request.stream()) {
      // The answer is only known at the end: a streamed body that emits the JSON then.
      Source<ByteString, NotUsed> whole = Source.completionStage(chunks
          .runForeach(chunk -> chunk.pieces().forEach(framer::add), materializer)
          .thenApplyAsync(done -> ByteString.fromString(framer.whole()), executor));
      return HttpResponse.create().withStatus(200).withHeaders(headers)
          .withEntity(HttpEntities.createChunked(ContentTypes.APPLICATION_JSON, whole));
    }
    Source<ByteString, NotUsed> body =
        framer.stream(chunks.map(chunk -> framer.frames(chunk.pieces())));
    headers.add(RawHeader.create("Cache-Control", "no-cache"));
    return HttpResponse.create().withStatus(200).withHeaders(headers)
        .withEntity(HttpEntities.createChunked(MediaTypes.TEXT_EVENT_STREAM.toContentType(),
            body));
  }

  /**
   * The client's words for a replica actor that did not answer. Pekko's own message names the
   * actor's path, which holds its node's address: that goes to this node's log only.
   */
  static String askFailure(Throwable cause, Duration timeout, String requestId) {
    if (cause instanceof TimeoutException) {
      return "no answer from the replica within " + timeout.toMillis() + " ms";
    }
    log.warn("Relayed request {}: asking the replica failed", requestId, cause);
    return "the replica could not be asked (" + cause.getClass().getSimpleName() + ")";
  }

  private HttpResponse failed(Throwable failure, String requestId) {
    if (failure instanceof RoutingException routing) {
      String detail = routing.getMessage();
      return PekkoAnswers.response(Answers.notRouted(routing.reason(), requestId,
          detail.substring(detail.indexOf(':') + 1).trim()));
    }
    if (failure instanceof ApiError refused) {  // a body too large
      return PekkoAnswers.response(Answers.error(refused, requestId));
    }
    if (failure instanceof java.util.concurrent.TimeoutException) {
      // The rest of the body may still come: the connection ends with this answer.
      return PekkoAnswers.response(Answers.error(ApiError.Code.REQUEST_TIMEOUT,
              "The request body did not arrive within "
                  + settings.splice().bodyTimeout().toSeconds() + " s", requestId))
          .addHeader(org.apache.pekko.http.javadsl.model.headers.Connection.create("close"));
    }
    String incident = RequestIds.newId();
    log.error(
        "Relayed request {} failed (incident {})", requestId, incident, failure);
    return PekkoAnswers.response(Answers.error(ApiError.Code.INTERNAL,
        "The relayed request failed (incident " + incident + ")", requestId));
  }
}
