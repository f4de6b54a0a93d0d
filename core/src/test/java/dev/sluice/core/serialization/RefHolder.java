package dev.sluice.core.serialization;

import org.apache.pekko.actor.typed.ActorRef;

/** A test message carrying an actor ref; registered in the test application.conf. */
record RefHolder(ActorRef<String> ref) implements ClusterMessage {}
