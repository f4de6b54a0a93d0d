package dev.sluice.replica.http;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slot reservations (Ray #63252): <em>reserve</em> takes a slot now and returns a token with the
 * true ongoing count; the request that later carries the token <em>consumes</em> it and uses that
 * slot instead of taking a second one; <em>release</em> gives an unused slot back (idempotent,
 * unknown tokens ignored); a token nobody consumed or released expires after {@code ttl}.
 */
public final class Reservations {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Slots slots;
  private final long ttlNanos;
  private final Map<String, Held> held = new ConcurrentHashMap<>();

  private record Held(Slots.Slot slot, long expiresAtNanos) {}

  /** A granted reservation. */
  public record Reserved(String token, int ongoing) {}

  public Reservations(Slots slots, Duration ttl) {
    this.slots = slots;
    this.ttlNanos = ttl.toNanos();
  }

  /** A reservation, or empty when the replica is at capacity. */
  public Optional<Reserved> reserve() {
    Slots.Slot slot = slots.tryAcquire();
    if (slot == null) {
      return Optional.empty();
    }
    byte[] random = new byte[16];
    RANDOM.nextBytes(random);
    String token = HexFormat.of().formatHex(random);
    held.put(token, new Held(slot, System.nanoTime() + ttlNanos));
    return Optional.of(new Reserved(token, slots.ongoing()));
  }

  /** Hands the reserved slot to the request carrying {@code token}; empty if unknown or expired. */
  public Optional<Slots.Slot> consume(String token) {
    Held entry = held.remove(token);
    return entry == null ? Optional.empty() : Optional.of(entry.slot());
  }

  /** Gives an unconsumed reservation back; returns whether it was held. */
  public boolean release(String token) {
    Held entry = held.remove(token);
    if (entry == null) {
      return false;
    }
    entry.slot().release();
    return true;
  }

  /** Releases every reservation past its deadline; returns how many. */
  public int expire(long nowNanos) {
    int expired = 0;
    for (Iterator<Map.Entry<String, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Held> entry = it.next();
      if (nowNanos - entry.getValue().expiresAtNanos() >= 0 && held.remove(entry.getKey()) != null) {
        entry.getValue().slot().release();
        expired++;
      }
    }
    return expired;
  }

  public int outstanding() {
    return held.size();
  }
}
