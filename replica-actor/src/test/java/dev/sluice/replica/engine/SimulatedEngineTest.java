package dev.sluice.replica.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulatedEngineTest {

  private static final String PROMPT = "x".repeat(64 * 10);

  @Test
  void prefixCacheCountsLeadingBlocksAlreadySeen() {
    PrefixCache cache = new PrefixCache(64, 100);

    assertThat(cache.lookupAndStore(PROMPT, 160)).isZero();
    assertThat(cache.lookupAndStore(PROMPT, 160)).isEqualTo(640);
    assertThat(cache.lookupAndStore(PROMPT.substring(0, 320) + "y".repeat(400), 180))
        .isEqualTo(320);
    assertThat(cache.hitRatio()).isEqualTo((160 + 80) / (160 + 160 + 180.0));
  }

  @Test
  void prefixCacheEvictsLeastRecentlyUsedBlocks() {
    PrefixCache cache = new PrefixCache(64, 10);
    cache.lookupAndStore(PROMPT, 160);

    cache.lookupAndStore("z".repeat(640), 160);

    assertThat(cache.usedBlocks()).isEqualTo(10);
    assertThat(cache.lookupAndStore(PROMPT, 160)).isZero();
  }

  @Test
  void aPrefixHitShortensTimeToFirstTokenInProportion() {
    Duration ttft = Duration.ofMillis(200);

    assertThat(SimulatedEngine.firstTokenDelay(ttft, 0, 1000)).isEqualTo(ttft);
    assertThat(SimulatedEngine.firstTokenDelay(ttft, 750, 1000)).isEqualTo(Duration.ofMillis(50));
    assertThat(SimulatedEngine.firstTokenDelay(ttft, 1000, 1000)).isZero();
  }

  @Test
  void batchAdmitsUpToMaxNumSeqsAndHandsPlacesOnInOrder() {
    BatchSlots batch = new BatchSlots(2);
    var a = batch.admit();
    var b = batch.admit();
    var c = batch.admit();
    var d = batch.admit();

    assertThat(a.admitted().toCompletableFuture()).isDone();
    assertThat(c.admitted().toCompletableFuture()).isNotDone();
    assertThat(batch.running()).isEqualTo(2);
    assertThat(batch.waiting()).isEqualTo(2);

    d.finish();
    assertThat(batch.waiting()).isEqualTo(1);
    a.finish();
    a.finish();
    assertThat(c.admitted().toCompletableFuture()).isDone();
    assertThat(batch.running()).isEqualTo(2);
    b.finish();
    c.finish();
    assertThat(batch.running()).isZero();
    assertThat(batch.waiting()).isZero();
  }
}
