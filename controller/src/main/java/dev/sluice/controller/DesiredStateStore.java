package dev.sluice.controller;

import dev.sluice.core.config.ApplicationsConfig;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.LWWRegister;
import org.apache.pekko.cluster.ddata.LWWRegisterKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.apache.pekko.cluster.ddata.typed.javadsl.DistributedData;
import org.apache.pekko.cluster.ddata.typed.javadsl.Replicator;
import org.apache.pekko.cluster.ddata.typed.javadsl.ReplicatorMessageAdapter;

/**
 * The desired applications in Pekko Distributed Data (a last-writer-wins register), so that the
 * next controller, on whichever control node, starts from them: a write is acknowledged only
 * once a majority of nodes holds it; at start the controller reads it back from a majority.
 */
final class DesiredStateStore {

  /** What the controller hears back from a load: the stored state, if any. */
  record Loaded(Optional<ApplicationsConfig> stored)
      implements Controller.Internal, NoSerializationVerificationNeeded {}

  /**
   * What the controller hears back from a store: done, or the failure (nothing changed).
   * {@code seed}: the node's own config stored because none was (nobody waits for it).
   */
  record Stored(ApplicationsConfig config, ActorRef<Controller.WriteResult> replyTo,
      Optional<String> failure, boolean seed)
      implements Controller.Internal, NoSerializationVerificationNeeded {}

  static final Key<LWWRegister<ApplicationsConfig>> KEY =
      LWWRegisterKey.create("sluice-desired-applications");

  private final ReplicatorMessageAdapter<Controller.Command, LWWRegister<ApplicationsConfig>>
      replicator;
  private final SelfUniqueAddress node;
  private final Duration timeout;

  DesiredStateStore(ActorContext<Controller.Command> context, Duration timeout) {
    // The adapter's own deadline is a backstop behind the replicator's (which answers with a
    // timeout itself); were it first, the adapter would fail the controller instead.
    this.replicator = new ReplicatorMessageAdapter<>(context,
        DistributedData.get(context.getSystem()).replicator(), timeout.plusSeconds(5));
    this.node = DistributedData.get(context.getSystem()).selfUniqueAddress();
    this.timeout = timeout;
  }

  /**
   * Reads the stored state from a majority (what this node holds, if no majority answers in
   * time); the controller then hears {@link Loaded}.
   */
  void load() {
    replicator.askGet(
        askReplyTo -> new Replicator.Get<>(KEY, new Replicator.ReadMajority(timeout), askReplyTo),
        response -> {
          if (response instanceof Replicator.GetSuccess<LWWRegister<ApplicationsConfig>> found) {
            return new Loaded(Optional.of(found.get(KEY).getValue()));
          }
          if (response instanceof Replicator.NotFound) {
            return new Loaded(Optional.empty());
          }
          return new ReadLocally();
        });
  }

  /** No majority answered: what this node holds will do. */
  record ReadLocally() implements Controller.Internal, NoSerializationVerificationNeeded {}

  void loadLocally() {
    replicator.askGet(
        askReplyTo -> new Replicator.Get<>(KEY, Replicator.readLocal(), askReplyTo),
        response -> response instanceof Replicator.GetSuccess<LWWRegister<ApplicationsConfig>>
            found ? new Loaded(Optional.of(found.get(KEY).getValue()))
            : new Loaded(Optional.empty()));
  }

  /** Stores {@code config} on a majority; the controller then hears {@link Stored}. */
  void store(ApplicationsConfig config, ActorRef<Controller.WriteResult> replyTo, boolean seed) {
    replicator.askUpdate(
        askReplyTo -> new Replicator.Update<>(KEY, LWWRegister.create(node, config),
            new Replicator.WriteMajority(timeout), askReplyTo,
            register -> register.withValue(node, config)),
        response -> response instanceof Replicator.UpdateSuccess
            ? new Stored(config, replyTo, Optional.empty(), seed)
            : new Stored(config, replyTo, Optional.of(describe(response)), seed));
  }

  private String describe(Replicator.UpdateResponse<LWWRegister<ApplicationsConfig>> response) {
    return response instanceof Replicator.UpdateTimeout
        ? "no majority answered within " + timeout.toMillis() + " ms"
        : response.getClass().getSimpleName();
  }
}
