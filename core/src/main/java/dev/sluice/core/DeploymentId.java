package dev.sluice.core;

import java.util.Objects;

/** An application's deployment: the unit that has replicas, a router and a replica set. */
public record DeploymentId(String app, String name) {

  public DeploymentId {
    Objects.requireNonNull(app, "app");
    Objects.requireNonNull(name, "name");
  }

  @Override
  public String toString() {
    return app + "#" + name;
  }
}
