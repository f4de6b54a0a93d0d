package dev.sluice.core.config;

import java.util.List;
import java.util.Optional;

/** The whole desired state: the applications Sluice serves (Ray Serve's config shape). */
public record ApplicationsConfig(List<ApplicationConfig> applications)
    implements dev.sluice.core.serialization.ClusterMessage {

  public ApplicationsConfig {
    applications = List.copyOf(applications);
  }

  public Optional<ApplicationConfig> application(String name) {
    return applications.stream().filter(a -> a.name().equals(name)).findFirst();
  }
}
