package dev.sluice.replica.engine;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The engine's batch: at most {@code maxNumSeqs} requests generate at once; the rest wait in
 * arrival order. A waiting request that is abandoned leaves the queue; a running one that ends
 * hands its place to the first waiter.
 */
final class BatchSlots {

  private final int maxNumSeqs;
  private final ArrayDeque<Admission> waiting = new ArrayDeque<>();
  private int running;

  BatchSlots(int maxNumSeqs) {
    this.maxNumSeqs = maxNumSeqs;
  }

  /** One request's place: admitted at once or later; {@link #finish()} exactly once. */
  final class Admission {
    private final CompletableFuture<Void> admitted = new CompletableFuture<>();
    private boolean finished;

    CompletionStage<Void> admitted() {
      return admitted;
    }

    void finish() {
      CompletableFuture<Void> next = null;
      synchronized (BatchSlots.this) {
        if (finished) {
          return;
        }
        finished = true;
        if (!admitted.isDone()) {
          waiting.remove(this);
          return;
        }
        Admission first = waiting.poll();
        if (first == null) {
          running--;
        } else {
          next = first.admitted;
        }
      }
      if (next != null) {
        next.complete(null);
      }
    }
  }

  Admission admit() {
    Admission admission = new Admission();
    boolean now;
    synchronized (this) {
      now = running < maxNumSeqs;
      if (now) {
        running++;
      } else {
        waiting.add(admission);
      }
    }
    if (now) {
      admission.admitted.complete(null);
    }
    return admission;
  }

  synchronized int running() {
    return running;
  }

  synchronized int waiting() {
    return waiting.size();
  }
}
