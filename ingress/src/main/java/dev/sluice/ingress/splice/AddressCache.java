package dev.sluice.ingress.splice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Replica host names resolved off the selector threads: a name lookup can block for seconds, and
 * a selector thread serves hundreds of streams. Addresses (what replicas normally advertise) are
 * parsed without any lookup; names are resolved on a small thread of their own and reused for
 * the DNS TTL.
 */
final class AddressCache implements AutoCloseable {

  private record Entry(CompletableFuture<InetAddress> address, long expires) {}

  private final long ttlNanos;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final ExecutorService resolver = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "sluice-splice-dns");
    thread.setDaemon(true);
    return thread;
  });

  AddressCache(Duration ttl) {
    this.ttlNanos = ttl.toNanos();
  }

  /** The address of {@code host:port}, at once when known (an address literal always is). */
  CompletionStage<InetSocketAddress> resolve(String host, int port) {
    long now = System.nanoTime();
    Entry entry = entries.get(host);
    if (stale(entry, now)) {
      entry = entries.compute(host, (name, old) ->
          stale(old, now) ? new Entry(lookup(name), now + ttlNanos) : old);
    }
    return entry.address().thenApply(address -> new InetSocketAddress(address, port));
  }

  /** Absent, or a finished lookup that failed or outlived the TTL (one in flight is kept). */
  private static boolean stale(Entry entry, long now) {
    return entry == null || (entry.address().isDone()
        && (now - entry.expires() > 0 || entry.address().isCompletedExceptionally()));
  }

  /** The address now if it is known, else null (then {@link #resolve} asynchronously). */
  InetSocketAddress known(String host, int port) {
    Entry entry = entries.get(host);
    if (entry == null || System.nanoTime() - entry.expires() > 0
        || !entry.address().isDone() || entry.address().isCompletedExceptionally()) {
      return null;
    }
    return new InetSocketAddress(entry.address().join(), port);
  }

  private CompletableFuture<InetAddress> lookup(String host) {
    if (isLiteral(host)) {
      try {
        return CompletableFuture.completedFuture(InetAddress.getByName(host));  // no lookup
      } catch (UnknownHostException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    CompletableFuture<InetAddress> address = CompletableFuture.supplyAsync(() -> {
      try {
        return InetAddress.getByName(host);
      } catch (UnknownHostException e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    }, resolver);
    return address;  // a failed lookup is stale at once: the next request tries again
  }

  /** An IPv4 dotted quad or an IPv6 literal: InetAddress parses these without a lookup. */
  static boolean isLiteral(String host) {
    if (host.indexOf(':') >= 0) {
      return true;
    }
    if (host.isEmpty()) {
      return false;
    }
    int dots = 0;
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (c == '.') {
        dots++;
      } else if (c < '0' || c > '9') {
        return false;
      }
    }
    return dots == 3;
  }

  @Override
  public void close() {
    resolver.shutdownNow();
  }
}
