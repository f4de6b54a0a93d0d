package dev.sluice.ingress.splice;

import com.typesafe.config.Config;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;

/**
 * A Pekko dispatcher executor for the router singleton: an actor scheduled from a splice loop's
 * thread runs on that thread, after the loop's current events; scheduled from any other thread,
 * it runs on a thread of its own. When the router lives on an ingress node, a request's route
 * then takes no thread hand-off at all: the loop asks the router, the router's mailbox runs on
 * the loop, its answer completes the ask there, and the loop forwards the request, all in one
 * wake-up. With a hand-off to a pool thread and back, each costs a wake-up (35-70 µs on a busy
 * 2-core VM, 100-200 µs on an idle one). The router's work per request is a few microseconds.
 *
 * <p>Selected with {@code sluice.ingress.splice.router-dispatcher} ({@code reference.conf}).
 */
public final class LoopDispatcher extends ExecutorServiceConfigurator {

  public LoopDispatcher(Config config, DispatcherPrerequisites prerequisites) {
    super(config, prerequisites);
  }

  @Override
  public ExecutorServiceFactory createExecutorServiceFactory(String id,
      ThreadFactory threadFactory) {
    return () -> new LoopFirst(new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(), threadFactory));
  }

  /** Runs a task on the calling splice loop, else on {@code elsewhere}. */
  static final class LoopFirst extends AbstractExecutorService {

    private final ExecutorService elsewhere;

    LoopFirst(ExecutorService elsewhere) {
      this.elsewhere = elsewhere;
    }

    @Override
    public void execute(Runnable task) {
      EventLoop loop = EventLoop.current();
      if (loop != null) {
        loop.execute(task);
      } else {
        elsewhere.execute(task);
      }
    }

    @Override
    public void shutdown() {
      elsewhere.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
      return elsewhere.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
      return elsewhere.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return elsewhere.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return elsewhere.awaitTermination(timeout, unit);
    }
  }
}
