package dev.sluice.replica.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The replica ports this node's endpoints hold or are binding. A new replica skips them instead
 * of failing a bind on each: with N replicas on a node that was N failed binds for the next one,
 * each logged by Pekko at ERROR with its stack trace, and a full range (a replica count beyond
 * its size) turned into a flood of them. Ports other processes hold are still found by binding.
 */
public final class PortLedger implements Extension {

  private static final ExtensionId<PortLedger> ID = new ExtensionId<>() {
    @Override
    public PortLedger createExtension(ActorSystem<?> system) {
      return new PortLedger();
    }
  };

  private final Set<Integer> held = ConcurrentHashMap.newKeySet();

  PortLedger() {}

  /** This node's ledger. */
  public static PortLedger get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** Takes {@code port} for a bind; false if a replica of this node has it. 0 is never held. */
  boolean claim(int port) {
    return port == 0 || held.add(port);
  }

  /** Gives {@code port} back (its bind failed, or its endpoint closed). */
  void release(int port) {
    held.remove(port);
  }

  /** How many ports this node's endpoints hold. */
  int held() {
    return held.size();
  }
}
