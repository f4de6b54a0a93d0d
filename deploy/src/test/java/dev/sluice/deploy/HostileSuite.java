package dev.sluice.deploy;

import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * One node for a whole table of {@link HostileCases}, sent through one of its data planes by a
 * {@link HostileRun}; after the last case, no slot and no lease may be left behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HostileSuite {

  protected SluiceNode node;
  protected HostileRun run;

  /** Settings the node gets beyond {@link HostileRun#node}'s. */
  abstract String nodeSettings();

  /** The port of the data plane under test. */
  abstract int port(SluiceNode node);

  @BeforeAll
  void start() throws Exception {
    node = HostileRun.node(nodeSettings());
    run = new HostileRun(node, port(node));
  }

  @AfterAll
  void stop() {
    try {
      run.noSlotOrLeaseIsLeftBehind();
    } finally {
      node.close();
    }
  }

  Stream<HostileCases.Case> cases() {
    return HostileCases.all(HostileRun.MAX_BODY).stream();
  }
}
