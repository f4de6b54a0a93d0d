package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** The ingress contract on the direct-streaming path with the Pekko HTTP data path. */
class DirectPekkoHttpIT extends IngressSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString(
        "sluice.ingress { direct-streaming = on, data-path = pekko-http }");
  }

  @Override
  boolean direct() {
    return true;
  }
}
