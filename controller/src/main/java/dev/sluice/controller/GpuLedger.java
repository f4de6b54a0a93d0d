package dev.sluice.controller;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.replica.NodeAgent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The replica nodes' GPUs as the controller plans them: what each node offers (its answer to
 * {@link NodeAgent.Adopt}) less what the replicas it was given there need ({@code num_gpus}).
 * Every replica the controller still knows on a node counts, draining ones too: a server holds its
 * GPUs until it has exited. A node that has not answered yet takes no replica that needs GPUs.
 *
 * <p>The node stays the authority: its {@code GpuPool} hands out the devices, and a start that
 * comes while a stopping server still holds them waits for that server to exit.
 */
final class GpuLedger {

  private final Map<ActorRef<NodeAgent.Command>, Integer> offered = new HashMap<>();

  /** What {@code node} offers, from its adoption answer. */
  void offered(ActorRef<NodeAgent.Command> node, List<String> devices) {
    offered.put(node, devices.size());
  }

  /** Nodes that left take their GPUs with them. */
  void retain(Set<ActorRef<NodeAgent.Command>> nodes) {
    offered.keySet().retainAll(nodes);
  }

  /** Whether a replica needing {@code need} GPUs fits on {@code node} now. */
  boolean fits(ActorRef<NodeAgent.Command> node, int need, Collection<ReplicaRecord> replicas) {
    if (need == 0) {
      return true;
    }
    Integer count = offered.get(node);
    return count != null && count - taken(node, replicas) >= need;
  }

  /**
   * Whether a replica needing {@code need} GPUs would fit on {@code node} once the replicas
   * there that are {@code leaving} are gone (a rolling update's old ones: for a server that needs
   * more GPUs than the old one, several may have to go).
   */
  boolean fitsWithout(ActorRef<NodeAgent.Command> node, int need,
      Collection<ReplicaRecord> replicas, Predicate<ReplicaRecord> leaving) {
    Integer count = offered.get(node);
    return need > 0 && count != null
        && count - taken(node, replicas.stream().filter(leaving.negate()).toList()) >= need;
  }

  private static int taken(ActorRef<NodeAgent.Command> node, Collection<ReplicaRecord> replicas) {
    int taken = 0;
    for (ReplicaRecord record : replicas) {
      if (record.node.equals(node)) {
        taken += record.gpusNeeded;
      }
    }
    return taken;
  }

  /**
   * The GPUs offered and allocated (to the replicas the controller knows), in all and per node
   * that offers some, for the status API: {@code {"offered": 4, "allocated": 2, "nodes": [{"node":
   * ..., "offered": 2, "allocated": 2}, ...]}}.
   */
  ObjectNode report(Collection<ActorRef<NodeAgent.Command>> nodes,
      Collection<ReplicaRecord> replicas, Function<ActorRef<NodeAgent.Command>, String> address) {
    ObjectNode report = JsonNodeFactory.instance.objectNode();
    ArrayNode rows = JsonNodeFactory.instance.arrayNode();
    int offeredInAll = 0;
    int allocatedInAll = 0;
    for (ActorRef<NodeAgent.Command> node : nodes) {
      Integer count = offered.get(node);
      if (count != null && count > 0) {
        int allocated = taken(node, replicas);
        offeredInAll += count;
        allocatedInAll += allocated;
        rows.addObject().put("node", address.apply(node)).put("offered", count)
            .put("allocated", allocated);
      }
    }
    report.put("offered", offeredInAll).put("allocated", allocatedInAll).set("nodes", rows);
    return report;
  }

  /**
   * Why no node takes a replica needing {@code need} GPUs, for the deployment's status: each
   * node's free GPUs, named by {@code address}.
   */
  String shortage(int need, Collection<ActorRef<NodeAgent.Command>> nodes,
      Collection<ReplicaRecord> replicas, Function<ActorRef<NodeAgent.Command>, String> address) {
    List<String> perNode = new ArrayList<>();
    for (ActorRef<NodeAgent.Command> node : nodes) {
      Integer count = offered.get(node);
      perNode.add(count == null ? "not known yet on " + address.apply(node)
          : count == 0 ? "none offered on " + address.apply(node)
          : Math.max(0, count - taken(node, replicas)) + " of " + count + " free on "
              + address.apply(node));
    }
    perNode.sort(null);
    return "waiting for GPUs: each replica needs " + need + " (num_gpus); "
        + (perNode.isEmpty() ? "no replica node" : String.join(", ", perNode))
        + " (sluice.replica.gpus)";
  }
}
