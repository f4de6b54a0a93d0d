package dev.sluice.ingress.splice;

import dev.sluice.core.http.ApiError;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request bytes all client connections together may hold while heads and bodies arrive
 * ({@code splice.max-buffered-request-bytes}): parked uploads cannot grow the heap past it. Each
 * connection holds an {@link Account} of what its buffers take, returned when they shrink or the
 * connection closes. An eighth of the budget is kept for connections holding at most
 * {@link #SMALL} bytes, so that large uploads filling the rest never starve ordinary requests.
 */
final class BufferBudget {

  /** A connection holding no more than this takes from the whole budget, reserve included. */
  static final long SMALL = 64 * 1024;

  private final long limit;
  private final long reserve;
  private final AtomicLong used = new AtomicLong();

  BufferBudget(long limit) {
    this.limit = limit;
    this.reserve = limit / 8;
  }

  long used() {
    return used.get();
  }

  long limit() {
    return limit;
  }

  Account account() {
    return new Account();
  }

  /** One connection's share; used by its loop thread only. */
  final class Account {
    private long held;

    /** Takes {@code bytes} more, or throws (503) when the budget has no room for them. */
    void grow(long bytes) throws MalformedHttpException {
      long now = used.addAndGet(bytes);
      if (now > (held + bytes <= SMALL ? limit : limit - reserve)) {
        used.addAndGet(-bytes);
        throw new MalformedHttpException(ApiError.Code.OVERLOADED, "The ingress is buffering "
            + "as many request bytes as it may (sluice.ingress.splice.max-buffered-request-bytes"
            + "): retry shortly");
      }
      held += bytes;
    }

    void shrink(long bytes) {
      held -= bytes;
      used.addAndGet(-bytes);
    }

    /** Returns everything this connection holds. */
    void close() {
      shrink(held);
    }

    long held() {
      return held;
    }
  }
}
