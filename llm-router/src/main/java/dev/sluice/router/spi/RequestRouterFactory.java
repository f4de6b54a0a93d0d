package dev.sluice.router.spi;

/**
 * Creates a policy instance for one deployment from its {@code request_router_kwargs}. Throws
 * {@link IllegalArgumentException} naming the bad kwarg, e.g. {@code num_virtual_nodes: 0
 * (expected: > 0)}.
 */
@FunctionalInterface
public interface RequestRouterFactory {

  RequestRouter create(RouterContext context, Kwargs kwargs);
}
