package dev.sluice.deploy;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * How to start one node.
 *
 * @param seedNodes {@code host:port} of seed nodes; empty = join itself (a one-node cluster)
 * @param appConfig the application YAML/JSON; empty = the built-in default app
 * @param overrides config that wins over everything else (tests: ephemeral ports)
 */
public record NodeOptions(
    Set<Role> roles,
    Optional<String> host,
    Optional<Integer> remotingPort,
    List<String> seedNodes,
    Optional<Path> appConfig,
    Config overrides) {

  public NodeOptions {
    roles = Set.copyOf(roles);
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(remotingPort, "remotingPort");
    seedNodes = List.copyOf(seedNodes);
    Objects.requireNonNull(appConfig, "appConfig");
    Objects.requireNonNull(overrides, "overrides");
  }

  /** All roles in one JVM, joining itself. */
  public static NodeOptions local(Optional<Path> appConfig, Config overrides) {
    return new NodeOptions(Set.of(Role.values()), Optional.empty(), Optional.empty(), List.of(),
        appConfig, overrides);
  }

  public static NodeOptions local(Config overrides) {
    return local(Optional.empty(), overrides);
  }

  public boolean has(Role role) {
    return roles.contains(role);
  }

  public NodeOptions withOverrides(Config more) {
    return new NodeOptions(roles, host, remotingPort, seedNodes, appConfig,
        more.withFallback(overrides));
  }

}
