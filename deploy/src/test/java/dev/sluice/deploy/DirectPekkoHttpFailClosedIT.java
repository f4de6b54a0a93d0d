package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** Fail-closed answers on the direct-streaming path with the Pekko HTTP data path. */
class DirectPekkoHttpFailClosedIT extends FailClosedSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString(
        "sluice.ingress { direct-streaming = on, data-path = pekko-http }");
  }
}
