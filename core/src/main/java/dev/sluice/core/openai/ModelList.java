package dev.sluice.core.openai;

import dev.sluice.core.http.JsonText;
import java.util.List;

/** The OpenAI {@code GET /v1/models} answer. */
public final class ModelList {

  private ModelList() {}

  public static String json(List<String> modelIds) {
    StringBuilder json = new StringBuilder("{\"object\":\"list\",\"data\":[");
    for (int i = 0; i < modelIds.size(); i++) {
      if (i > 0) {
        json.append(',');
      }
      json.append(model(modelIds.get(i)));
    }
    return json.append("]}").toString();
  }

  public static String model(String modelId) {
    return "{\"id\":" + JsonText.quote(modelId)
        + ",\"object\":\"model\",\"created\":0,\"owned_by\":\"sluice\"}";
  }
}
