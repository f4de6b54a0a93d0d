package dev.sluice.router.policy.prefixaffinity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixIndexTest {

  private static String blocks(char... letters) {
    StringBuilder text = new StringBuilder();
    for (char letter : letters) {
      text.append(String.valueOf(letter).repeat(4));
    }
    return text.toString();
  }

  @Test
  void matchesWholeBlocksOnTheReplicasHoldingThem() {
    PrefixIndex index = new PrefixIndex(8, 4, 100);
    index.insert(2, blocks('a', 'b', 'c'));
    index.insert(5, blocks('a', 'b', 'x'));

    PrefixIndex.Match both = index.longestMatch(blocks('a', 'b', 'z'));
    PrefixIndex.Match one = index.longestMatch(blocks('a', 'b', 'c', 'd') + "xy");

    assertThat(both.chars()).isEqualTo(8);
    assertThat(both.replicas()[0]).isEqualTo((1L << 2) | (1L << 5));
    assertThat(one.chars()).isEqualTo(12);
    assertThat(one.replicas()[0]).isEqualTo(1L << 2);
    assertThat(index.longestMatch(blocks('q')).chars()).isZero();
  }

  @Test
  void clockEvictionGivesRecentlyUsedBlocksASecondChance() {
    PrefixIndex index = new PrefixIndex(1, 4, 3);
    index.insert(0, blocks('a'));
    index.insert(0, blocks('b'));
    index.insert(0, blocks('c'));
    index.insert(0, blocks('a'));

    index.insert(0, blocks('d'));

    assertThat(index.blocksHeld(0)).isEqualTo(3);
    assertThat(index.longestMatch(blocks('a')).chars()).as("used again: kept").isEqualTo(4);
    assertThat(index.longestMatch(blocks('b')).chars()).as("oldest unused: forgotten").isZero();
    assertThat(index.longestMatch(blocks('d')).chars()).isEqualTo(4);
  }

  @Test
  void clearingAReplicaDropsBlocksNobodyElseHolds() {
    PrefixIndex index = new PrefixIndex(2, 4, 100);
    index.insert(0, blocks('a', 'b'));
    index.insert(1, blocks('a'));

    index.clear(0);

    assertThat(index.blockCount()).isEqualTo(1);
    assertThat(index.longestMatch(blocks('a', 'b')).chars()).isEqualTo(4);
  }

  @Test
  void blockTableBehavesLikeAMapUnderRandomAddsAndRemoves() {
    BlockTable table = new BlockTable();
    Map<Long, Integer> reference = new HashMap<>();
    Random random = new Random(5);
    for (int step = 0; step < 200_000; step++) {
      long key = random.nextInt(5_000) * 0x9E3779B97F4A7C15L;
      if (random.nextInt(3) == 0) {
        table.remove(key);
        reference.remove(key);
      } else {
        int id = table.findOrAdd(key);
        Integer previous = reference.putIfAbsent(key, id);
        if (previous != null) {
          assertThat(id).isEqualTo(previous);
        }
      }
    }
    assertThat(table.size()).isEqualTo(reference.size());
    reference.forEach((key, id) -> assertThat(table.find(key)).isEqualTo(id));
    assertThat(reference.values()).doesNotHaveDuplicates();
  }
}
