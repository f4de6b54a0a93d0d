package dev.sluice.router.spi;

import java.util.Map;

/**
 * Creates a policy instance for one deployment from its validated {@code request_router_kwargs}.
 * Throws {@link IllegalArgumentException} naming the bad kwarg.
 */
@FunctionalInterface
public interface RequestRouterFactory {

  RequestRouter create(Map<String, Object> kwargs);
}
