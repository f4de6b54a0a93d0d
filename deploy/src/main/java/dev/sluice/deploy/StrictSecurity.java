package dev.sluice.deploy;

import com.typesafe.config.Config;
import dev.sluice.controller.ControllerSettings;
import dev.sluice.controller.api.ApiGuard;
import dev.sluice.deploy.haproxy.HaproxySettings;
import dev.sluice.ingress.IngressSettings;
import dev.sluice.router.RouterSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's listeners beyond loopback without their guard ({@link Exposure}), found once at
 * start, before the node joins: each is a {@code SECURITY} warning, or, with
 * {@code sluice.security.strict} on, the node does not start and says every reason at once. For
 * production, where a missing secret or certificate should stop a rollout rather than leave a
 * node open with a line in its log.
 */
final class StrictSecurity {

  private static final Logger log = LoggerFactory.getLogger(StrictSecurity.class);
  static final String KEY = "sluice.security.strict";

  private StrictSecurity() {}

  /**
   * Warns about every unguarded listener this node would have, or, when strict, throws listing
   * them.
   */
  static void enforce(Config config, Set<Role> roles, boolean clusterToken,
      ApiGuard.Credential apiCredential, boolean apiHttps, Optional<IngressSettings> ingress) {
    List<String> findings = findings(config, roles, clusterToken, apiCredential, apiHttps,
        ingress);
    if (!config.getBoolean(KEY) || findings.isEmpty()) {
      findings.forEach(finding -> log.warn("SECURITY: {}", finding));
      return;
    }
    StringBuilder message = new StringBuilder(KEY + " (env SLUICE_SECURITY_STRICT) is on, and "
        + "this node would listen beyond loopback unguarded:");
    for (int i = 0; i < findings.size(); i++) {
      message.append("\n  ").append(i + 1).append(". ").append(findings.get(i));
    }
    throw new IllegalArgumentException(message.append("\n(expected: every listener beyond "
        + "loopback guarded, or " + KEY + " = off)").toString());
  }

  /**
   * What {@link Exposure} would warn about on a node with these roles and this config; {@code
   * ingress}: the node's ingress settings (read once: they hold the API keys), when it has one.
   */
  static List<String> findings(Config config, Set<Role> roles, boolean clusterToken,
      ApiGuard.Credential apiCredential, boolean apiHttps, Optional<IngressSettings> ingress) {
    List<Optional<String>> all = new ArrayList<>();
    all.add(Exposure.remoting(config));
    if (roles.contains(Role.CONTROL)) {
      ControllerSettings controller = ControllerSettings.fromConfig(config);
      if (controller.apiPort() >= 0) {
        all.add(Exposure.controllerApi(controller.apiHost(), apiCredential));
        all.add(Exposure.controllerApiInClear(controller.apiHost(), apiHttps));
      }
    }
    if (roles.contains(Role.REPLICA)) {
      all.add(Exposure.internalEndpoint("every replica endpoint",
          Exposure.replicaBindHost(config), clusterToken));
    }
    RouterSettings router = RouterSettings.fromConfig(config);
    if (SluiceNode.servesRouterEndpoint(roles, config) && router.httpPort() >= 0) {
      all.add(Exposure.internalEndpoint("the router's /internal/route", router.httpHost(),
          clusterToken));
    }
    ingress.ifPresent(settings -> {
      all.add(Exposure.publicListener("the ingress", settings.host(),
          settings.apiKeys().enabled()));
      HaproxySettings haproxy = HaproxySettings.fromConfig(config);
      if (haproxy.enabled()) {
        all.add(Exposure.publicListener("the HAProxy data plane", haproxy.host(),
            settings.apiKeys().enabled()));
      }
    });
    return all.stream().flatMap(Optional::stream).toList();
  }
}
