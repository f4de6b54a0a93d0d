package dev.sluice.deploy;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice node}: one node of a multi-node cluster. */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Run one cluster node with the given roles.")
final class NodeCommand implements Callable<Integer> {

  @Option(names = "--roles", required = true, paramLabel = "ROLES",
      description = "Comma-separated: control, ingress, replica.")
  String roles;

  @Option(names = "--seed-nodes", paramLabel = "HOST:PORT,...",
      description = "Seed nodes to join (default: join itself, a one-node cluster).")
  String seedNodes;

  @Option(names = "--host", description = "Hostname other nodes reach this one by.")
  String host;

  @Option(names = "--port", description = "Pekko remoting port (default: 25520).")
  Integer port;

  @Option(names = "--config", paramLabel = "FILE",
      description = "Application YAML/JSON (control nodes; default: the built-in sim app).")
  Path config;

  @Override
  public Integer call() throws Exception {
    List<String> seeds = seedNodes == null ? List.of()
        : Arrays.stream(seedNodes.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    seeds.forEach(SluiceNode::seedAddress);
    NodeOptions options = new NodeOptions(Role.parse(roles), Optional.ofNullable(host),
        Optional.ofNullable(port), seeds, Optional.ofNullable(config), ConfigFactory.empty());
    SluiceNode node = SluiceNode.start(options);
    System.out.println("Sluice node " + node.system().address() + " up with roles " + roles
        + "; direct streaming: ON");
    node.ingressPort().ifPresent(p -> System.out.println("  Ingress port " + p));
    node.routerPort().ifPresent(p -> System.out.println("  Router endpoint port " + p));
    node.system().getWhenTerminated().toCompletableFuture().get();
    return 0;
  }
}
