package dev.sluice.controller.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The controller's status document carries each application's desired config as stored
 * ({@code deployed_app_config}, engine env included). The API shows it only where asked for it,
 * {@code GET /api/config}, so that the status an operator pastes into a ticket
 * ({@code GET /api/applications}, {@code sluice status --json}) holds no engine secrets.
 */
final class ConfigView {

  static final String FIELD = "deployed_app_config";
  private static final ObjectMapper JSON = new ObjectMapper();

  private ConfigView() {}

  /** The status without the applications' configs. */
  static String status(String document) {
    ObjectNode root = read(document);
    root.path("applications").forEach(app -> ((ObjectNode) app).remove(FIELD));
    return root.toString();
  }

  /** {@code {"applications": [config, ...]}}: what {@code PUT /api/applications} takes back. */
  static String config(String document) {
    ObjectNode config = JSON.createObjectNode();
    ArrayNode apps = config.putArray("applications");
    read(document).path("applications").forEach(app -> apps.add(app.path(FIELD)));
    return config.toString();
  }

  private static ObjectNode read(String document) {
    try {
      JsonNode root = JSON.readTree(document);
      if (!(root instanceof ObjectNode object)) {
        throw new IllegalStateException("the controller's status is not a JSON object");
      }
      return object;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the controller's status is not JSON", e);
    }
  }
}
