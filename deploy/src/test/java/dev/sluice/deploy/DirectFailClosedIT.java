package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** Fail-closed answers on the direct-streaming path (splice data path, the default). */
class DirectFailClosedIT extends FailClosedSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString("sluice.ingress { direct-streaming = on }");
  }
}
