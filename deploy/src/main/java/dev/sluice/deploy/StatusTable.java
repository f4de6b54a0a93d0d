package dev.sluice.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** {@code sluice status} as a table: a line per deployment, then one per replica under it. */
final class StatusTable {

  private StatusTable() {}

  static String render(JsonNode status) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"APP", "DEPLOYMENT", "STATUS", "TARGET", "REPLICAS BY STATE",
        "MESSAGE"});
    List<String[]> replicaRows = new ArrayList<>();
    StringBuilder out = new StringBuilder();
    JsonNode apps = status.path("applications");
    if (apps.isEmpty()) {
      return "No applications.\n";
    }
    for (JsonNode app : apps) {
      for (JsonNode deployment : app.path("deployments")) {
        List<String> states = new ArrayList<>();
        deployment.path("replicas_by_state").fields().forEachRemaining(
            e -> states.add(e.getKey() + " " + e.getValue().asInt()));
        rows.add(new String[] {app.path("name").asText(), deployment.path("name").asText(),
            deployment.path("status").asText(), deployment.path("target_replicas").asText(),
            states.isEmpty() ? "-" : String.join(", ", states),
            deployment.path("message").asText()});
      }
    }
    out.append(table(rows));
    replicaRows.add(new String[] {"REPLICA", "NODE", "ENDPOINT", "STATE", "ONGOING", "GPUS"});
    boolean gpus = false;
    for (JsonNode app : apps) {
      for (JsonNode deployment : app.path("deployments")) {
        for (JsonNode replica : deployment.path("replicas")) {
          List<String> held = new ArrayList<>();
          replica.path("gpus").forEach(device -> held.add(device.asText()));
          gpus |= !held.isEmpty();
          replicaRows.add(new String[] {replica.path("replica_id").asText(),
              replica.path("node").asText(),
              replica.path("endpoint").isNull() ? "-" : replica.path("endpoint").asText(),
              state(replica), replica.path("ongoing").asText(),
              held.isEmpty() ? "-" : String.join(",", held)});
        }
      }
    }
    if (!gpus) {  // the GPUS column (the servers' CUDA_VISIBLE_DEVICES) only where some are held
      replicaRows.replaceAll(row -> Arrays.copyOf(row, row.length - 1));
    }
    if (replicaRows.size() > 1) {
      out.append('\n').append(table(replicaRows));
    }
    out.append(gpus(status.path("gpus")));
    return out.toString();
  }

  /** The replica nodes' GPUs, allocated of offered, when any node offers some. */
  private static String gpus(JsonNode gpus) {
    if (gpus.path("offered").asInt() == 0) {
      return "";
    }
    List<String> perNode = new ArrayList<>();
    gpus.path("nodes").forEach(node -> perNode.add(node.path("node").asText() + " "
        + node.path("allocated").asInt() + " of " + node.path("offered").asInt()));
    return "\nGPUs allocated: " + gpus.path("allocated").asInt() + " of "
        + gpus.path("offered").asInt() + " (" + String.join(", ", perNode) + ")\n";
  }

  private static String table(List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(i == columns - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** A RUNNING replica that is not serving is on a node the cluster cannot reach. */
  private static String state(JsonNode replica) {
    String state = replica.path("state").asText();
    return state.equals("RUNNING") && !replica.path("serving").asBoolean(true)
        ? "RUNNING (node unreachable)" : state;
  }
}
