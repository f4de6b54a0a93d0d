package dev.sluice.router.spi;

/**
 * Marks a {@link RequestRouter} that routes by the prompt ({@link PendingRequest#prompt()}): the
 * ingress and HAProxy's Lua action then send the request bodies of its application to the router
 * (up to the ingress's {@code forward-body-limit}) whatever {@code forward-body} says. Without
 * it, a policy sees a prompt only on nodes with {@code forward-body = on}.
 *
 * <p>The ingress nodes decide this from the class, so an outside policy that implements it must
 * be on their classpath too (not only on the control nodes', where it runs).
 */
public interface ReadsPrompt {}
