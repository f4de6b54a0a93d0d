package dev.sluice.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/** The same ingress contract on the relayed path (choose/dispatch, tokens via a stream ref). */
class RelayedPathIT extends IngressSuite {

  @Override
  Config pathConfig() {
    return ConfigFactory.parseString("sluice.ingress.direct-streaming = off");
  }

  @Override
  boolean direct() {
    return false;
  }
}
