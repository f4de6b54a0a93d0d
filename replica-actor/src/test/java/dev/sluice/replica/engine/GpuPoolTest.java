package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuPoolTest {

  @Test
  void serversGetDistinctDevicesInTheNodesOrderUntilNoneAreLeft() {
    GpuPool pool = GpuPool.parse(" 2, 0 ,MIG-4a1b/1/0,3");

    GpuPool.Lease a = pool.acquire(2, "app#llm#a");
    GpuPool.Lease b = pool.acquire(1, "app#llm#b");

    assertThat(a.devices()).containsExactly("2", "0");
    assertThat(a.visibleDevices()).isEqualTo("2,0");
    assertThat(b.visibleDevices()).isEqualTo("MIG-4a1b/1/0");
    assertThat(pool.free()).containsExactly("3");
    assertThatThrownBy(() -> pool.acquire(2, "app#llm#c"))
        .isInstanceOf(GpuPool.NoFreeGpus.class)
        .hasMessage("needs 2 GPUs (num_gpus), and 1 of this node's 4 (sluice.replica.gpus: "
            + "2,0,MIG-4a1b/1/0,3) is free; held by app#llm#a, app#llm#b");
    assertThat(pool.free()).as("a refusal takes nothing").containsExactly("3");
  }

  @Test
  void devicesGivenBackGoOutAgainAndGivingBackTwiceChangesNothing() {
    GpuPool pool = new GpuPool(List.of("0", "1"));
    GpuPool.Lease a = pool.acquire(1, "a");
    GpuPool.Lease b = pool.acquire(1, "b");

    a.release();
    a.release();

    assertThat(pool.free()).containsExactly("0");
    assertThat(pool.acquire(1, "c").devices()).containsExactly("0");
    assertThat(pool.free()).isEmpty();
    b.release();
    assertThat(pool.free()).containsExactly("1");
  }

  @Test
  void aStartWaitsForAStoppingServersDevicesAndGetsThemOnceGivenBack() throws Exception {
    GpuPool pool = new GpuPool(List.of("0"));
    GpuPool.Lease stopping = pool.acquire(1, "old");
    CompletableFuture<GpuPool.Lease> next = CompletableFuture.supplyAsync(
        () -> pool.acquire(1, "new", Duration.ofSeconds(30), () -> false));

    assertThatThrownBy(() -> next.get(300, TimeUnit.MILLISECONDS))
        .as("still held: the start waits").isInstanceOf(TimeoutException.class);
    stopping.release();

    assertThat(next.get(10, TimeUnit.SECONDS).devices()).containsExactly("0");
    assertThat(pool.free()).isEmpty();
  }

  @Test
  void aWaitEndsInTheRefusalAtItsBoundOrWhenCancelledAndAtOnceWhenTheNodeHasTooFew() {
    GpuPool pool = new GpuPool(List.of("0"));
    pool.acquire(1, "held");
    long start = System.nanoTime();

    assertThatThrownBy(() -> pool.acquire(1, "late", Duration.ofMillis(200), () -> false))
        .isInstanceOf(GpuPool.NoFreeGpus.class).hasMessageContaining("held by held");
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(200_000_000L);
    AtomicBoolean stopped = new AtomicBoolean();
    CompletableFuture<GpuPool.Lease> cancelled = CompletableFuture.supplyAsync(
        () -> pool.acquire(1, "stopped", Duration.ofMinutes(5), stopped::get));
    stopped.set(true);
    assertThatThrownBy(() -> cancelled.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(GpuPool.NoFreeGpus.class);
    long tooMany = System.nanoTime();
    assertThatThrownBy(() -> pool.acquire(2, "big", Duration.ofMinutes(5), () -> false))
        .hasMessageStartingWith("needs 2 GPUs (num_gpus), and 0 of this node's 1");
    assertThat(System.nanoTime() - tooMany).as("no wait: two never fit here")
        .isLessThan(Duration.ofMinutes(1).toNanos());
  }

  @Test
  void aNodeWithoutGpusSaysHowToOfferThem() {
    assertThat(GpuPool.parse("  ")).isSameAs(GpuPool.NONE);
    assertThatThrownBy(() -> GpuPool.NONE.acquire(1, "a"))
        .hasMessage("needs 1 GPU (num_gpus), and this node offers none (sluice.replica.gpus, "
            + "env SLUICE_REPLICA_GPUS: none found, or none listed)");
  }

  @Test
  void aSettingThatIsNotADeviceListIsRefusedNamingIt() {
    assertThatThrownBy(() -> GpuPool.parse("0,0"))
        .hasMessage("sluice.replica.gpus: '0' is listed twice");
    assertThatThrownBy(() -> GpuPool.parse("0,,1"))
        .hasMessageStartingWith("sluice.replica.gpus: '' (expected: device indexes or GPU-/MIG-");
    assertThatThrownBy(() -> GpuPool.parse("0;1"))
        .hasMessageStartingWith("sluice.replica.gpus: '0;1' (expected:");
    assertThatThrownBy(() -> GpuPool.parse("all"))
        .as("not a CUDA device list (NVIDIA_VISIBLE_DEVICES's word): say which devices")
        .hasMessageStartingWith("sluice.replica.gpus: 'all' (expected:");
    assertThat(GpuPool.parse("GPU-8c2d2e7e-94b1-4c1f-b0a5-1f3e0c2d9a11").free()).hasSize(1);
  }

  @Test
  void autoOffersTheNodesOwnDeviceListElseOneIndexPerNvidiaDevice(@TempDir Path dev)
      throws Exception {
    for (String file : List.of("nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm",
        "nvidia-modeset", "null")) {
      Files.createFile(dev.resolve(file));
    }

    assertThat(GpuPool.parse("auto", Map.of(), dev).devices()).containsExactly("0", "1", "2");
    assertThat(GpuPool.parse(" auto ", Map.of("CUDA_VISIBLE_DEVICES", "2,GPU-77aa"), dev)
        .devices()).as("the operator's choice").containsExactly("2", "GPU-77aa");
    assertThat(GpuPool.parse("auto", Map.of("CUDA_VISIBLE_DEVICES", "1,-1,2"), dev).devices())
        .as("read as CUDA reads it: up to the first entry that is no device")
        .containsExactly("1");
    assertThat(GpuPool.parse("auto", Map.of("CUDA_VISIBLE_DEVICES", "-1"), dev))
        .isSameAs(GpuPool.NONE);
    assertThat(GpuPool.parse("auto", Map.of("CUDA_VISIBLE_DEVICES", ""), dev))
        .isSameAs(GpuPool.NONE);
    assertThat(GpuPool.parse("auto", Map.of(), dev.resolve("missing"))).isSameAs(GpuPool.NONE);
    assertThat(GpuPool.parse("3", Map.of(), dev).devices()).as("a list is taken as it is")
        .containsExactly("3");
  }
}
