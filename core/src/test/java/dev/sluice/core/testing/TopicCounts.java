package dev.sluice.core.testing;

import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;

/** Test helper: what a topic actor knows (its local subscribers, the topic actors it sends to). */
public final class TopicCounts {

  private TopicCounts() {}

  public static Topic.TopicStats of(ActorTestKit node, ActorRef<? extends Topic.Command<?>> topic) {
    TestProbe<Topic.TopicStats> reply = node.createTestProbe();
    @SuppressWarnings("unchecked")
    var any = (ActorRef<Topic.Command<Object>>) topic;
    any.tell(Topic.getTopicStats(reply.ref()));
    return reply.receiveMessage();
  }
}
