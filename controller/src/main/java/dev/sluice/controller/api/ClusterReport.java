package dev.sluice.controller.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * {@code GET /api/cluster}: the members (address, roles, status, reachability), the leader,
 * where each singleton runs (on the oldest member that is up with role {@code control}), as this
 * node sees the cluster, how its traffic travels ({@code transport}: {@code tcp}, or {@code
 * tls-tcp} for mutual TLS), and what opens this API ({@code api_guard}: {@code api-token},
 * {@code cluster-token} or {@code none}, {@link ApiGuard}).
 */
public final class ClusterReport {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTROL = "control";

  private ClusterReport() {}

  static String json(ActorSystem<?> system) {
    return tree(system).toString();
  }

  /** The same report as a JSON tree (the dashboard embeds it). */
  public static ObjectNode tree(ActorSystem<?> system) {
    ObjectNode root = tree(Cluster.get(system).state(), system.address(),
        system.settings().config().getString("pekko.remote.artery.transport"));
    root.put("api_guard", ApiGuard.fromConfig(system.settings().config()).credential()
        .wireName());
    return root;
  }

  static ObjectNode tree(ClusterEvent.CurrentClusterState state, Address self,
      String transport) {
    ObjectNode root = JSON.createObjectNode();
    root.put("self", self.toString());
    root.put("transport", transport);
    Address leader = state.getLeader();
    if (leader == null) {
      root.putNull("leader");
    } else {
      root.put("leader", leader.toString());
    }
    Set<Member> unreachable = state.getUnreachable();
    ArrayNode members = root.putArray("members");
    Member oldestControl = null;
    for (Member member : state.getMembers()) {
      ObjectNode row = members.addObject();
      row.put("address", member.address().toString());
      ArrayNode roles = row.putArray("roles");
      member.getRoles().stream().filter(role -> !role.startsWith("dc-")).sorted()
          .forEach(roles::add);
      row.put("status", member.status().toString());
      row.put("reachable", !unreachable.contains(member));
      if (member.status() == MemberStatus.up() && member.hasRole(CONTROL)
          && (oldestControl == null || member.isOlderThan(oldestControl))) {
        oldestControl = member;
      }
    }
    ObjectNode singletons = root.putObject("singletons");
    for (String singleton : new String[] {"controller", "llm-router", "capacity-queue"}) {
      if (oldestControl == null) {
        singletons.putNull(singleton);
      } else {
        singletons.put(singleton, oldestControl.address().toString());
      }
    }
    root.put("unreachable", StreamSupport.stream(unreachable.spliterator(), false).count());
    return root;
  }
}
