package dev.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Kubernetes manifests hold together: every file is in the kustomization, Services and probes
 * name ports the pods have, and the network policies admit clients to exactly the ports the
 * Services expose and everything else only from Sluice pods (a misnamed port in a policy admits
 * nothing, and a port opened by mistake admits anyone).
 */
class KubernetesManifestsTest {

  private static final Path FOLDER = Path.of("kubernetes");

  @Test
  void theKustomizationListsEveryManifestAndOnlyThose() throws IOException {
    Set<String> listed = new HashSet<>(strings(get(kustomization(), "resources")));
    Set<String> files;
    try (Stream<Path> all = Files.list(FOLDER)) {
      files = all.map(path -> path.getFileName().toString())
          .filter(name -> name.endsWith(".yaml") && !name.equals("kustomization.yaml"))
          .collect(Collectors.toSet());
    }
    assertThat(listed).isEqualTo(files).contains("networkpolicy.yaml");
  }

  @Test
  void servicesAndProbesNamePortsTheirPodsHave() throws IOException {
    List<Map<String, Object>> pods = podTemplates();
    assertThat(pods).hasSize(2);
    for (Map<String, Object> service : ofKind("Service")) {
      Map<String, Object> selector = map(get(service, "spec", "selector"));
      List<Map<String, Object>> selected = pods.stream()
          .filter(pod -> selects(selector, labels(pod))).toList();
      assertThat(selected).as(name(service) + " selects pods").isNotEmpty();
      for (Object port : list(get(service, "spec", "ports"))) {
        Object target = get(map(port), "targetPort");
        selected.forEach(pod -> assertThat(portNames(pod))
            .as(name(service) + "'s targetPort").contains(String.valueOf(target)));
      }
    }
    for (Map<String, Object> pod : pods) {
      Map<String, Object> container = container(pod);
      for (String probe : List.of("readinessProbe", "livenessProbe")) {
        assertThat(portNames(pod)).as(probe)
            .contains(String.valueOf(get(map(container.get(probe)), "httpGet", "port")));
      }
      assertThat(env(container, "SLUICE_MANAGEMENT_PORT")).as("the management port")
          .isEqualTo(String.valueOf(containerPort(pod, "management")));
    }
  }

  @Test
  void onlySluicePodsReachInternalPortsAndClientsOnlyWhatTheServicesExpose() throws IOException {
    List<Map<String, Object>> pods = podTemplates();
    List<Map<String, Object>> policies = ofKind("NetworkPolicy");
    Set<String> exposed = new HashSet<>();
    for (Map<String, Object> service : ofKind("Service")) {
      list(get(service, "spec", "ports"))
          .forEach(port -> exposed.add(String.valueOf(get(map(port), "targetPort"))));
    }
    Set<String> admittedFromAnywhere = new HashSet<>();
    Set<String> admittedFromCluster = new HashSet<>();
    boolean internalAdmitted = false;
    for (Map<String, Object> policy : policies) {
      assertThat(strings(get(policy, "spec", "policyTypes"))).containsExactly("Ingress");
      Map<String, Object> podSelector = map(get(policy, "spec", "podSelector", "matchLabels"));
      List<Map<String, Object>> selected = pods.stream()
          .filter(pod -> selects(podSelector, labels(pod))).toList();
      assertThat(selected).as(name(policy) + " selects pods").isNotEmpty();
      for (Object rule : list(get(policy, "spec", "ingress"))) {
        Object from = map(rule).get("from");
        List<Object> ports = map(rule).containsKey("ports") ? list(map(rule).get("ports"))
            : List.of();
        for (Object port : ports) {
          String named = String.valueOf(get(map(port), "port"));
          selected.forEach(pod -> assertThat(portNames(pod))
              .as(name(policy) + " names a port its pods have").contains(named));
        }
        if (from == null) {
          assertThat(ports).as(name(policy) + ": a rule from anywhere names its ports")
              .isNotEmpty();
          ports.forEach(port -> admittedFromAnywhere.add(String.valueOf(get(map(port), "port"))));
          continue;
        }
        for (Object source : list(from)) {
          if (map(source).containsKey("namespaceSelector")) {
            assertThat(map(source)).as("a source from every namespace").containsOnlyKeys(
                "namespaceSelector").containsEntry("namespaceSelector", Map.of());
            assertThat(ports).as(name(policy) + ": a rule from the cluster names its ports")
                .isNotEmpty();
            ports.forEach(port -> admittedFromCluster.add(String.valueOf(get(map(port), "port"))));
            continue;
          }
          Map<String, Object> peers = map(get(map(source), "podSelector", "matchLabels"));
          assertThat(map(source)).as("internal sources are pods of this namespace")
              .containsOnlyKeys("podSelector");
          assertThat(peers).containsEntry("app", "sluice");
          internalAdmitted |= ports.isEmpty()
              && pods.stream().allMatch(pod -> selects(podSelector, labels(pod)));
        }
      }
    }
    assertThat(internalAdmitted).as("a policy admits Sluice pods to every Sluice pod").isTrue();
    assertThat(admittedFromAnywhere).as("ports open to any client").isEqualTo(exposed)
        .doesNotContain("remoting", "management");
    assertThat(admittedFromCluster).as("ports open to Prometheus in the cluster")
        .containsExactly("metrics");
  }

  @Test
  void podsServeMetricsOnThePodIpWherePodMonitorScrapesThemAsJobSluice() throws IOException {
    Map<String, Object> monitor = map(new Yaml().load(
        Files.readString(FOLDER.resolve("monitoring/podmonitor.yaml"))));
    assertThat(strings(get(kustomization(FOLDER.resolve("monitoring")), "resources")))
        .containsExactly("podmonitor.yaml");
    Map<String, Object> selector = map(get(monitor, "spec", "selector", "matchLabels"));
    String port = String.valueOf(get(map(list(get(monitor, "spec", "podMetricsEndpoints"))
        .get(0)), "port"));
    String jobLabel = String.valueOf(get(monitor, "spec", "jobLabel"));
    // The alerting rules' node-down rule expects job="sluice".
    assertThat(Files.readString(Path.of("prometheus-alerts.yml"))).contains("up{job=\"sluice\"}");
    for (Map<String, Object> pod : podTemplates()) {
      assertThat(selects(selector, labels(pod))).as("the PodMonitor selects every pod").isTrue();
      assertThat(labels(pod)).as("the job label").containsEntry(jobLabel, "sluice");
      assertThat(portNames(pod)).contains(port);
      Map<String, Object> container = container(pod);
      assertThat(env(container, "SLUICE_METRICS_PORT"))
          .isEqualTo(String.valueOf(containerPort(pod, port)));
      assertThat(env(container, "SLUICE_METRICS_HOST")).as("bound on the pod IP")
          .isEqualTo("$(SLUICE_HOST)");
    }
  }

  @Test
  void thePrometheusRuleIsTheAlertingRulesFile() throws Exception {
    ProcessBuilder builder = new ProcessBuilder("bash", "kubernetes/monitoring/prometheusrule.sh");
    builder.environment().put("LABELS", "release=kube-prometheus-stack");
    Process script = builder.start();
    String printed = new String(script.getInputStream().readAllBytes());
    assertThat(script.waitFor()).isZero();
    Map<String, Object> rule = map(new Yaml().load(printed));
    Map<String, Object> alerts = map(new Yaml().load(
        Files.readString(Path.of("prometheus-alerts.yml"))));
    assertThat(rule).containsEntry("kind", "PrometheusRule");
    assertThat(map(get(rule, "metadata", "labels")))
        .containsEntry("release", "kube-prometheus-stack");
    assertThat(get(rule, "spec", "groups")).isEqualTo(alerts.get("groups"));
  }

  private static Map<String, Object> kustomization() throws IOException {
    return kustomization(FOLDER);
  }

  private static Map<String, Object> kustomization(Path folder) throws IOException {
    return map(new Yaml().load(Files.readString(folder.resolve("kustomization.yaml"))));
  }

  private static List<Map<String, Object>> documents() throws IOException {
    List<Map<String, Object>> documents = new ArrayList<>();
    for (String file : strings(get(kustomization(), "resources"))) {
      for (Object document : new Yaml().loadAll(Files.readString(FOLDER.resolve(file)))) {
        if (document != null) {
          documents.add(map(document));
        }
      }
    }
    return documents;
  }

  private static List<Map<String, Object>> ofKind(String kind) throws IOException {
    return documents().stream().filter(document -> kind.equals(document.get("kind"))).toList();
  }

  private static List<Map<String, Object>> podTemplates() throws IOException {
    List<Map<String, Object>> pods = new ArrayList<>();
    for (Map<String, Object> deployment : ofKind("Deployment")) {
      Map<String, Object> template = map(get(deployment, "spec", "template"));
      assertThat(selects(map(get(deployment, "spec", "selector", "matchLabels")),
          labels(template))).as(name(deployment) + " selects its own pods").isTrue();
      pods.add(template);
    }
    return pods;
  }

  private static Map<String, Object> labels(Map<String, Object> pod) {
    return map(get(pod, "metadata", "labels"));
  }

  private static boolean selects(Map<String, Object> selector, Map<String, Object> labels) {
    return labels.entrySet().containsAll(selector.entrySet());
  }

  private static Map<String, Object> container(Map<String, Object> pod) {
    List<Object> containers = list(get(pod, "spec", "containers"));
    assertThat(containers).hasSize(1);
    return map(containers.get(0));
  }

  private static Set<String> portNames(Map<String, Object> pod) {
    return list(container(pod).get("ports")).stream()
        .map(port -> String.valueOf(map(port).get("name"))).collect(Collectors.toSet());
  }

  private static Object containerPort(Map<String, Object> pod, String name) {
    return list(container(pod).get("ports")).stream().map(KubernetesManifestsTest::map)
        .filter(port -> name.equals(port.get("name"))).findFirst()
        .map(port -> port.get("containerPort")).orElse(null);
  }

  private static String env(Map<String, Object> container, String name) {
    return list(container.get("env")).stream().map(KubernetesManifestsTest::map)
        .filter(variable -> name.equals(variable.get("name"))).findFirst()
        .map(variable -> String.valueOf(variable.get("value"))).orElse(null);
  }

  private static String name(Map<String, Object> document) {
    return document.get("kind") + " " + get(document, "metadata", "name");
  }

  private static Object get(Map<String, Object> node, String... path) {
    Object at = node;
    for (String key : path) {
      assertThat(at).as(String.join(".", path)).isInstanceOf(Map.class);
      at = map(at).get(key);
    }
    return at;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object node) {
    assertThat(node).isInstanceOf(Map.class);
    return (Map<String, Object>) node;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object node) {
    assertThat(node).isInstanceOf(List.class);
    return (List<Object>) node;
  }

  private static List<String> strings(Object node) {
    return list(node).stream().map(String::valueOf).toList();
  }
}
