package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** The ingress contract on the direct-streaming path with the splice data path (the default). */
class DirectStreamingIT extends IngressSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString("sluice.ingress { direct-streaming = on }");
  }

  @Override
  boolean direct() {
    return true;
  }
}
