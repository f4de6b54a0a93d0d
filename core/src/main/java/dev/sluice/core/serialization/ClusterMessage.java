package dev.sluice.core.serialization;

/**
 * Marker for every message that may cross nodes. It is bound to {@link KryoSerializer} in
 * {@code reference.conf}; its concrete classes must be listed in
 * {@code sluice.core.kryo.registrations} (registration is required).
 */
public interface ClusterMessage {}
