package dev.sluice.router;

import dev.sluice.core.DeploymentId;
import dev.sluice.core.ReplicaInfo;
import dev.sluice.core.http.ServeReason;
import dev.sluice.router.reserve.ReservationClient;
import dev.sluice.router.spi.PendingRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One {@link LLMRouter.Choose}: asks the router for ranks, tries to reserve a slot on each
 * replica in rank order, and when all refuse backs off 25 ms × 2^attempt (at most 500 ms) and asks
 * for fresh ranks, until the deadline. Always answers exactly once; a reservation that arrives
 * after it gave up is released, never leaked. At the deadline the answer says why: a replica
 * refused (at capacity) or, when no replica could even be asked (connection refused, no answer,
 * too many reservation requests queued), {@code replica_unreachable}.
 */
final class ReservationWalk extends AbstractBehavior<ReservationWalk.Command> {

  sealed interface Command extends NoSerializationVerificationNeeded
      permits Ranked, Outcome, Retry, Deadline {}

  private record Ranked(LLMRouter.Ranking ranking) implements Command {}

  /** A replica's answer, or {@code failure} (in words) when it could not be asked. */
  private record Outcome(ReplicaInfo replica, int rank, ReservationClient.Outcome outcome,
      String failure) implements Command {}

  private enum Retry implements Command { INSTANCE }

  private enum Deadline implements Command { INSTANCE }

  private static final Duration FIRST_BACKOFF = Duration.ofMillis(25);
  private static final Duration MAX_BACKOFF = Duration.ofMillis(500);

  private record Attempt(ReplicaInfo replica, int rank) {}

  private final ActorRef<LLMRouter.Command> router;
  private final DeploymentId deployment;
  private final PendingRequest request;
  private final List<String> excluded;
  private final ActorRef<RouteResult> replyTo;
  private final ReservationClient client;
  private final TimerScheduler<Command> timers;
  private final ActorRef<LLMRouter.Ranking> rankAdapter;
  private List<Attempt> attempts = List.of();
  private int next;
  private int backoffs;
  private boolean inFlight;
  private boolean answered;
  private int refusals;
  private int failures;
  private String lastFailure;

  private ReservationWalk(ActorContext<Command> context, TimerScheduler<Command> timers,
      ActorRef<LLMRouter.Command> router, DeploymentId deployment, PendingRequest request,
      List<String> excluded, ActorRef<RouteResult> replyTo, ReservationClient client,
      Duration timeout) {
    super(context);
    this.excluded = excluded;
    this.timers = timers;
    this.router = router;
    this.deployment = deployment;
    this.request = request;
    this.replyTo = replyTo;
    this.client = client;
    this.rankAdapter = context.messageAdapter(LLMRouter.Ranking.class, Ranked::new);
    timers.startSingleTimer(Deadline.INSTANCE, timeout);
    askForRanks();
  }

  static Behavior<Command> create(ActorRef<LLMRouter.Command> router, DeploymentId deployment,
      PendingRequest request, List<String> excluded, ActorRef<RouteResult> replyTo,
      ReservationClient client, Duration timeout) {
    return Behaviors.withTimers(timers -> Behaviors.setup(context -> new ReservationWalk(
        context, timers, router, deployment, request, excluded, replyTo, client, timeout)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Ranked.class, this::onRanked)
        .onMessage(Outcome.class, this::onOutcome)
        .onMessage(Retry.class, m -> askForRanks())
        .onMessage(Deadline.class, m -> onDeadline())
        .build();
  }

  private Behavior<Command> askForRanks() {
    router.tell(new LLMRouter.RankFor(deployment, request, excluded, rankAdapter));
    return this;
  }

  private Behavior<Command> onRanked(Ranked ranked) {
    if (ranked.ranking().replicas() == 0 && !answered) {
      answered = true;
      replyTo.tell(new RouteResult.NotRouted(ServeReason.NO_REPLICAS,
          "no replicas available for " + deployment));
      return Behaviors.stopped();
    }
    List<List<ReplicaInfo>> ranks = ranked.ranking().ranks();
    List<Attempt> flat = new ArrayList<>();
    for (int rank = 0; rank < ranks.size(); rank++) {
      for (ReplicaInfo replica : ranks.get(rank)) {
        flat.add(new Attempt(replica, rank));
      }
    }
    attempts = flat;
    next = 0;
    return tryNext();
  }

  private Behavior<Command> tryNext() {
    if (answered) {
      return Behaviors.stopped();
    }
    if (next >= attempts.size()) {
      long delay = Math.min(FIRST_BACKOFF.toMillis() << Math.min(backoffs, 10),
          MAX_BACKOFF.toMillis());
      backoffs++;
      timers.startSingleTimer(Retry.INSTANCE, Duration.ofMillis(delay));
      return this;
    }
    Attempt attempt = attempts.get(next++);
    inFlight = true;
    getContext().pipeToSelf(client.reserve(attempt.replica()), (outcome, failure) ->
        failure == null ? new Outcome(attempt.replica(), attempt.rank(), outcome, null)
            : new Outcome(attempt.replica(), attempt.rank(), null,
                ReservationClient.describe(failure)));
    return this;
  }

  private Behavior<Command> onOutcome(Outcome result) {
    inFlight = false;
    if (result.failure() != null) {
      failures++;
      lastFailure = "replica " + result.replica().id() + ": " + result.failure();
      return tryNext();
    }
    var outcome = result.outcome();
    if (outcome.token().isPresent()) {
      if (answered) {
        client.release(result.replica(), outcome.token().get());
        return Behaviors.stopped();
      }
      answered = true;
      replyTo.tell(new RouteResult.Reserved(result.replica(), outcome.token().get(),
          outcome.ongoing()));
      router.tell(new LLMRouter.ReservedBy(deployment, request, result.replica(), result.rank(),
          outcome.ongoing()));
      return Behaviors.stopped();
    }
    refusals++;
    router.tell(new LLMRouter.Observed(result.replica().id(), outcome.ongoing()));
    return tryNext();
  }

  private Behavior<Command> onDeadline() {
    if (!answered) {
      answered = true;
      String failed = failures == 0 ? ""
          : "; " + failures + " reservation request(s) failed, the last " + lastFailure;
      replyTo.tell(refusals == 0 && failures > 0
          ? new RouteResult.NotRouted(ServeReason.REPLICA_UNREACHABLE, "no replica of "
              + deployment + " could be asked for a slot in time (" + backoffs + " back-offs)"
              + failed)
          : new RouteResult.NotRouted(ServeReason.REPLICA_AT_CAPACITY, "no replica of "
              + deployment + " granted a slot in time (" + backoffs + " back-offs)" + failed));
    }
    return inFlight ? this : Behaviors.stopped();
  }
}
