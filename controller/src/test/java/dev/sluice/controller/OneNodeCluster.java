package dev.sluice.controller;

import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * A test kit whose system is a one-node cluster joined to itself, so that the controller can keep
 * its desired state in Distributed Data.
 */
public final class OneNodeCluster {

  private OneNodeCluster() {}

  /** A started kit with these cluster roles; shut it down after the tests. */
  public static ActorTestKit start(String... roles) {
    ActorTestKit testKit = ActorTestKit.create(ConfigFactory.parseString("""
            pekko.actor.provider = cluster
            pekko.remote.artery.canonical.port = 0
            pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
            """)
        .withFallback(ConfigFactory.empty().withValue("pekko.cluster.roles",
            com.typesafe.config.ConfigValueFactory.fromIterable(List.of(roles))))
        .withFallback(ConfigFactory.parseResources("application-test-base.conf"))
        .withFallback(ConfigFactory.load()));
    Cluster cluster = Cluster.get(testKit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    return testKit;
  }
}
