package dev.sluice.core.metrics;

import com.typesafe.config.Config;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.UnboundedMessageQueueSemantics;
import scala.Option;

/**
 * An unbounded mailbox that keeps {@code sluice_actor_mailbox_depth{actor}} current: the number
 * of messages waiting in the mailboxes of every actor of one kind on this node (its
 * {@code actor-kind} setting). One increment on enqueue and one decrement on dequeue: the same
 * lock-free queue as Pekko's default mailbox plus a counter. Configured in {@code reference.conf}
 * under {@code sluice.mailboxes}, selected with {@link #selector(String)}.
 */
public final class CountingMailbox implements MailboxType {

  private final GaugeDataPoint depth;

  public CountingMailbox(ActorSystem.Settings settings, Config config) {
    this.depth = SluiceMetrics.global().gauge("actor_mailbox_depth",
        "Messages waiting in the mailboxes of the instrumented actors of one kind on this node.",
        "actor").labelValues(config.getString("actor-kind"));
  }

  /** The mailbox selector for actors of {@code kind} (a key under {@code sluice.mailboxes}). */
  public static org.apache.pekko.actor.typed.MailboxSelector selector(String kind) {
    return org.apache.pekko.actor.typed.MailboxSelector.fromConfig("sluice.mailboxes." + kind);
  }

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    return new CountingQueue(depth);
  }

  static final class CountingQueue implements MessageQueue, UnboundedMessageQueueSemantics {

    private final ConcurrentLinkedQueue<Envelope> queue = new ConcurrentLinkedQueue<>();
    private final GaugeDataPoint depth;

    CountingQueue(GaugeDataPoint depth) {
      this.depth = depth;
    }

    @Override
    public void enqueue(ActorRef receiver, Envelope handle) {
      queue.add(handle);
      depth.inc();
    }

    @Override
    public Envelope dequeue() {
      Envelope next = queue.poll();
      if (next != null) {
        depth.dec();
      }
      return next;
    }

    @Override
    public int numberOfMessages() {
      return queue.size();
    }

    @Override
    public boolean hasMessages() {
      return !queue.isEmpty();
    }

    @Override
    public void cleanUp(ActorRef owner, MessageQueue deadLetters) {
      Envelope left;
      while ((left = dequeue()) != null) {
        deadLetters.enqueue(owner, left);
      }
    }
  }
}
