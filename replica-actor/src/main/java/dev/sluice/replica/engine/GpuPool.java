package dev.sluice.replica.engine;

import dev.sluice.core.config.EngineConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.slf4j.LoggerFactory;

/**
 * The GPUs a replica node gives its replicas' servers ({@code sluice.replica.gpus}, env
 * {@code SLUICE_REPLICA_GPUS}). A server of a deployment with {@code num_gpus: N} gets N of them
 * for itself, named to it in {@code CUDA_VISIBLE_DEVICES}, and gives them back once it has
 * exited (not when it is asked to stop: a server holds its GPU memory until it is gone). The
 * controller places replicas by the devices each node offers (told in its adoption answer); a
 * server that still finds too few free waits for a stopping server to exit, up to a bound, then
 * does not start, and says which replicas hold them.
 */
public final class GpuPool implements Extension {

  /** The setting; its env override is {@code SLUICE_REPLICA_GPUS}. */
  public static final String SETTING = "sluice.replica.gpus";
  /** A node that offers no GPU. */
  public static final GpuPool NONE = new GpuPool(List.of());

  /** The setting's word for "what this machine has" (its default). */
  public static final String AUTO = "auto";
  private static final Pattern NVIDIA_DEVICE = Pattern.compile("nvidia[0-9]+");
  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(GpuPool.class);

  /** A device as CUDA names it: an index, or a GPU or MIG UUID. */
  private static final Pattern DEVICE =
      Pattern.compile("[0-9]{1,4}|(GPU|MIG)-[A-Za-z0-9/-]{1,124}");

  private static final ExtensionId<GpuPool> ID = new ExtensionId<>() {
    @Override
    public GpuPool createExtension(ActorSystem<?> system) {
      GpuPool pool = parse(system.settings().config().getString(SETTING), System.getenv(),
          Path.of("/dev"));
      if (!pool.devices.isEmpty()) {
        LOG.info("Replica node GPUs ({}): {}", SETTING, String.join(",", pool.devices));
      }
      return pool;
    }
  };

  private static final long CANCEL_POLL_NANOS = 100_000_000L;

  private final List<String> devices;
  /** Device to the replica holding it, for the devices held. */
  private final Map<String, String> holders = new LinkedHashMap<>();

  /** @param devices the node's devices, in the order they are handed out */
  public GpuPool(List<String> devices) {
    Set<String> distinct = new LinkedHashSet<>();
    for (String device : devices) {
      if (!DEVICE.matcher(device).matches()) {
        throw new IllegalArgumentException(SETTING + ": '" + device + "' (expected: device "
            + "indexes or GPU-/MIG- UUIDs as in CUDA_VISIBLE_DEVICES, separated by commas)");
      }
      if (!distinct.add(device)) {
        throw new IllegalArgumentException(SETTING + ": '" + device + "' is listed twice");
      }
    }
    this.devices = List.copyOf(distinct);
  }

  /**
   * This node's pool ({@link #SETTING}), read once; a replica node asks for it as it starts, so
   * that a mistake in the setting stops the node rather than each replica.
   */
  public static GpuPool get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /**
   * The pool of a setting: a list such as {@code "0,1,2,3"}; empty for none; {@code auto} for
   * what this machine has ({@link #detect}).
   */
  public static GpuPool parse(String setting, Map<String, String> env, Path dev) {
    return setting.trim().equals(AUTO) ? detect(env, dev) : parse(setting);
  }

  /** The pool of a device list such as {@code "0,1,2,3"}; an empty one offers none. */
  public static GpuPool parse(String setting) {
    String trimmed = setting.trim();
    if (trimmed.isEmpty()) {
      return NONE;
    }
    List<String> devices = new ArrayList<>();
    for (String device : trimmed.split(",", -1)) {
      devices.add(device.trim());
    }
    return new GpuPool(devices);
  }

  /**
   * The GPUs of this machine as CUDA numbers them: the node's own {@code CUDA_VISIBLE_DEVICES}
   * when it was started with one (the operator's choice; read as CUDA does, up to its first
   * entry that is no device, so {@code ""} and {@code -1} are none), else one index per NVIDIA
   * device node in {@code dev} ({@code /dev/nvidia0}, ...; CUDA counts the devices it can see
   * from 0, in a container too), else none.
   */
  static GpuPool detect(Map<String, String> env, Path dev) {
    String visible = env.get(EngineConfig.GPU_VARIABLE);
    if (visible != null) {
      List<String> devices = new ArrayList<>();
      for (String entry : visible.split(",", -1)) {
        String device = entry.trim();
        if (!DEVICE.matcher(device).matches() || devices.contains(device)) {
          break;
        }
        devices.add(device);
      }
      return devices.isEmpty() ? NONE : new GpuPool(devices);
    }
    long count;
    try (Stream<Path> files = Files.list(dev)) {
      count = files.filter(file -> NVIDIA_DEVICE.matcher(file.getFileName().toString())
          .matches()).count();
    } catch (IOException | UncheckedIOException e) {
      count = 0;
    }
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      devices.add(Integer.toString(i));
    }
    return devices.isEmpty() ? NONE : new GpuPool(devices);
  }

  /** The devices offered, in the order they are handed out. */
  public List<String> devices() {
    return devices;
  }

  /**
   * {@code count} free devices for {@code replica}, the first free ones in the node's order.
   *
   * @throws NoFreeGpus when fewer are free; nothing is taken then
   */
  public Lease acquire(int count, String replica) {
    return acquire(count, replica, Duration.ZERO, () -> false);
  }

  /**
   * {@code count} free devices for {@code replica}, waiting up to {@code wait} for servers that
   * hold them to exit (a replaced server's successor may be placed here while it still stops).
   *
   * @param cancelled polled while waiting: true gives up (the replica is stopped)
   * @throws NoFreeGpus when fewer are free at the end, or the node has fewer in all, or it was
   *     cancelled; nothing is taken then
   */
  public synchronized Lease acquire(int count, String replica, Duration wait,
      BooleanSupplier cancelled) {
    if (count < 1) {
      throw new IllegalArgumentException("count: " + count + " (expected: >= 1)");
    }
    Objects.requireNonNull(replica, "replica");
    long deadline = System.nanoTime() + wait.toNanos();
    List<String> free = free();
    if (free.size() < count && count <= devices.size() && !wait.isZero()) {
      LOG.info("Replica {} waits up to {} s for a stopping server's GPUs: {}", replica,
          wait.toSeconds(), refusal(count, free.size()));
    }
    while (free.size() < count && count <= devices.size() && !cancelled.getAsBoolean()) {
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        break;
      }
      try {
        // woken by a release; the slice bounds how late a cancellation is seen
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(remaining, CANCEL_POLL_NANOS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      free = free();
    }
    if (free.size() < count) {
      throw new NoFreeGpus(refusal(count, free.size()));
    }
    List<String> taken = List.copyOf(free.subList(0, count));
    taken.forEach(device -> holders.put(device, replica));
    return new Lease(taken);
  }

  /** The devices no server holds. */
  public synchronized List<String> free() {
    return devices.stream().filter(device -> !holders.containsKey(device)).toList();
  }

  private String refusal(int count, int free) {
    String wanted = "needs " + count + " GPU" + (count == 1 ? "" : "s") + " (num_gpus)";
    if (devices.isEmpty()) {
      return wanted + ", and this node offers none (" + SETTING + ", env SLUICE_REPLICA_GPUS: "
          + "none found, or none listed)";
    }
    Set<String> holding = new LinkedHashSet<>(holders.values());
    return wanted + ", and " + free + " of this node's " + devices.size() + " (" + SETTING
        + ": " + String.join(",", devices) + ") " + (free == 1 ? "is" : "are") + " free"
        + (holding.isEmpty() ? "" : "; held by " + String.join(", ", holding));
  }

  private synchronized void release(List<String> taken) {
    taken.forEach(holders::remove);
    notifyAll();
  }

  /** Devices held by one server until {@link #release}. */
  public final class Lease {

    private final List<String> taken;
    private boolean released;

    private Lease(List<String> taken) {
      this.taken = taken;
    }

    public List<String> devices() {
      return taken;
    }

    /** The value of {@link EngineConfig#GPU_VARIABLE} for the server. */
    public String visibleDevices() {
      return String.join(",", taken);
    }

    /** Whether the devices were given back. */
    public boolean released() {
      synchronized (GpuPool.this) {
        return released;
      }
    }

    /** Gives the devices back; again, nothing happens. */
    public void release() {
      synchronized (GpuPool.this) {
        if (released) {
          return;
        }
        released = true;
        GpuPool.this.release(taken);
      }
    }
  }

  /** Fewer free GPUs on this node than a server needs. */
  public static final class NoFreeGpus extends IllegalStateException {
    NoFreeGpus(String message) {
      super(message);
    }
  }
}
