package dev.sluice.core.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

  @Test
  void aNewIdIsARandomVersion4UuidInItsUsualText() {
    String id = RequestIds.newId();
    UUID parsed = UUID.fromString(id);
    assertThat(parsed.version()).isEqualTo(4);
    assertThat(parsed.variant()).isEqualTo(2);  // IETF
    assertThat(parsed.toString()).isEqualTo(id);
    assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(RequestIds.isSafe(id)).isTrue();
  }

  @Test
  void idsDrawnOnManyThreadsAtOnceAreAllDistinct() throws InterruptedException {
    Set<String> ids = ConcurrentHashMap.newKeySet();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < 25_000; i++) {
          ids.add(RequestIds.newId());
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(ids).hasSize(100_000);
  }

  @Test
  void everyRandomBitOutsideVersionAndVariantIsUsed() {
    long seenHigh = 0;
    long seenLow = 0;
    Set<String> prefixes = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      UUID id = UUID.fromString(RequestIds.newId());
      seenHigh |= id.getMostSignificantBits();
      seenLow |= id.getLeastSignificantBits();
      prefixes.add(id.toString().substring(0, 2));
    }
    // Every bit has been 1 at least once, but the version nibble's three 0 bits (0100) and the
    // variant's 0 bit (10).
    assertThat(seenHigh).isEqualTo(~0xB000L);
    assertThat(seenLow).isEqualTo(~0x4000000000000000L);
    assertThat(prefixes).hasSizeGreaterThan(200);  // consistent-hash keys spread
  }

  @Test
  void aSafeIdSentByTheClientIsKeptAndAnUnsafeOneReplaced() {
    assertThat(RequestIds.accept("trace-42:a.b_c")).isEqualTo("trace-42:a.b_c");
    String replaced = RequestIds.accept("bad id\r\nx: y");
    assertThat(replaced).isNotEqualTo("bad id\r\nx: y");
    assertThat(UUID.fromString(replaced).version()).isEqualTo(4);
    assertThat(UUID.fromString(RequestIds.accept(null)).version()).isEqualTo(4);
  }
}
