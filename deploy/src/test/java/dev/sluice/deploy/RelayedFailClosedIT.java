package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** Fail-closed answers on the relayed path. */
class RelayedFailClosedIT extends FailClosedSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString("sluice.ingress.direct-streaming = off");
  }
}
