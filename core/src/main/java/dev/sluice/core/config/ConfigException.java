package dev.sluice.core.config;

/** An application config that cannot be served; the message names the field and the expectation. */
public final class ConfigException extends RuntimeException {

  public ConfigException(String message) {
    super(message);
  }

  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
