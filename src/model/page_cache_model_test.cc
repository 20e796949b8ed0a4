#include "model/page_cache_model.h"

#include <gtest/gtest.h>

#include <list>
#include <map>
#include <random>
#include <utility>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {
namespace {

constexpr uint64_t kFile = 7;

PageCacheOptions Options(uint64_t pages, bool readahead = false) {
  PageCacheOptions options;
  options.capacity_bytes = pages * kPageSize;
  options.readahead = readahead;
  return options;
}

uint64_t ResidentPages(const PageCacheModel& cache) {
  return cache.used_bytes() / kPageSize;
}

// Reads one page.
PageAccessResult ReadPage(PageCacheModel& cache, uint64_t page,
                          uint64_t file = kFile) {
  return cache.AccessPages(file, page, 1);
}

// Reads each page once, then each again: all end up active.
void MakeActive(PageCacheModel& cache, uint64_t first, uint64_t count) {
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t page = first; page < first + count; ++page) {
      ReadPage(cache, page);
    }
  }
}

// ---------------------------------------------------------------------------
// Lists.

TEST(PageCacheModelTest, SecondTouchPromotesToActive) {
  PageCacheModel cache(Options(8));
  EXPECT_EQ(ReadPage(cache, 0).missed_pages, 1u);
  EXPECT_EQ(cache.inactive_pages(), 1u);
  ReadPage(cache, 1);
  EXPECT_EQ(ReadPage(cache, 0).hit_pages, 1u);
  EXPECT_EQ(cache.active_pages(), 1u);
  EXPECT_EQ(cache.inactive_pages(), 1u);
}

TEST(PageCacheModelTest, RereadOfTheSamePageDoesNotPromote) {
  // filemap_read marks the first page only if the previous read of the file
  // ended elsewhere, so a run of reads inside one page is one reference.
  PageCacheModel cache(Options(8));
  ReadPage(cache, 0);
  ReadPage(cache, 0);
  ReadPage(cache, 0);
  EXPECT_EQ(cache.active_pages(), 0u);
  ReadPage(cache, 1);
  ReadPage(cache, 0);
  EXPECT_EQ(cache.active_pages(), 1u);
}

TEST(PageCacheModelTest, InsertIsNotAnAccess) {
  PageCacheModel cache(Options(8));
  const Block block{kFile, 0, 100, 100};
  cache.Insert(block);
  EXPECT_TRUE(cache.Contains(kFile, 0));
  EXPECT_TRUE(cache.Read(block));  // first touch: referenced only
  ReadPage(cache, 3);
  EXPECT_EQ(cache.active_pages(), 0u);
  EXPECT_TRUE(cache.Read(block));  // second touch
  EXPECT_EQ(cache.active_pages(), 1u);
}

TEST(PageCacheModelTest, EvictsOldestInactivePageFirst) {
  PageCacheModel cache(Options(4));
  for (uint64_t page = 0; page < 4; ++page) ReadPage(cache, page);
  ReadPage(cache, 4);
  EXPECT_FALSE(cache.Contains(kFile, 0));
  ReadPage(cache, 1);  // activates 1, which protects it
  ReadPage(cache, 5);
  EXPECT_TRUE(cache.Contains(kFile, 1));
  EXPECT_FALSE(cache.Contains(kFile, 2));
  EXPECT_TRUE(cache.Contains(kFile, 3));
  EXPECT_EQ(ResidentPages(cache), 4u);
}

TEST(PageCacheModelTest, ScanDoesNotFlushActivePages) {
  PageCacheModel cache(Options(64));
  MakeActive(cache, 0, 16);
  // 40 pages read once each: all compete for the 48 inactive places.
  for (uint64_t page = 100; page < 140; ++page) ReadPage(cache, page);
  for (uint64_t page = 0; page < 16; ++page) {
    EXPECT_TRUE(cache.Contains(kFile, page)) << page;
  }
}

TEST(PageCacheModelTest, DemotesOldestActivePagesWhenInactiveIsLow) {
  PageCacheModel cache(Options(128));
  MakeActive(cache, 0, 70);
  // A third touch while active sets PG_referenced on pages 0-9.
  for (uint64_t page = 0; page < 10; ++page) ReadPage(cache, page);
  for (uint64_t page = 100; page < 158; ++page) ReadPage(cache, page);
  ASSERT_EQ(cache.active_pages(), 70u);
  ASSERT_EQ(cache.inactive_pages(), 58u);
  // Full; 58 < 70 (ratio 1 below 1 GiB), so this reclaim round ages the
  // active list by the inactive list's share: ceil(32 * 70 / 58) = 39 of
  // the oldest active pages move to the inactive head; then one eviction.
  ReadPage(cache, 200);
  EXPECT_EQ(cache.active_pages(), 31u);
  EXPECT_EQ(cache.inactive_pages(), 97u);
  EXPECT_FALSE(cache.Contains(kFile, 100));
  // Demoted pages keep PG_referenced (set by a touch while active): one
  // more touch re-activates them; pages without it need two.
  ReadPage(cache, 0);
  EXPECT_EQ(cache.active_pages(), 32u);
  ReadPage(cache, 10);
  EXPECT_EQ(cache.active_pages(), 32u);
}

TEST(PageCacheModelTest, NoDemotionWhileBalanced) {
  PageCacheModel cache(Options(128));
  MakeActive(cache, 0, 60);
  for (uint64_t page = 100; page < 168; ++page) ReadPage(cache, page);
  ReadPage(cache, 200);
  EXPECT_EQ(cache.active_pages(), 60u);
  EXPECT_EQ(cache.inactive_pages(), 68u);
}

// Fills a cache of `pages` with `active` active pages, the rest inactive,
// then adds one more page; returns the active pages after that reclaim.
uint64_t ActiveAfterReclaim(uint64_t pages, uint64_t active) {
  PageCacheModel cache(Options(pages));
  MakeActive(cache, 0, active);
  for (uint64_t page = pages; ResidentPages(cache) < pages; ++page) {
    ReadPage(cache, page);
  }
  ReadPage(cache, 3 * pages);
  return cache.active_pages();
}

TEST(PageCacheModelTest, InactiveRatioGrowsWithCacheSize) {
  // 1 GiB on the lists: inactive_ratio = int_sqrt(10 * 1) = 3, so 2.6
  // active pages per inactive one are balanced and 3.2 are not.
  const uint64_t gib = uint64_t{1} << 18;
  EXPECT_EQ(ActiveAfterReclaim(gib, 190000), 190000u);
  EXPECT_LT(ActiveAfterReclaim(gib, 200000), 200000u);
}

// ---------------------------------------------------------------------------
// Refaults.

TEST(PageCacheModelTest, QuickRefaultActivates) {
  PageCacheModel cache(Options(8));
  MakeActive(cache, 0, 2);  // clock 2 (two activations)
  for (uint64_t page = 10; page < 16; ++page) ReadPage(cache, page);
  ReadPage(cache, 16);  // evicts 10 at clock 2; clock 3
  ASSERT_FALSE(cache.Contains(kFile, 10));
  EXPECT_EQ(cache.shadow_entries(), 1u);
  // Re-reading 10 first evicts 11 (clock 4): distance 4 - 2 = 2 <= 2
  // active pages, so 10 would have stayed had the active pages been
  // inactive: it comes back active.
  ReadPage(cache, 10);
  EXPECT_EQ(cache.active_pages(), 3u);
  EXPECT_TRUE(cache.Contains(kFile, 10));
}

TEST(PageCacheModelTest, LateRefaultStaysInactive) {
  PageCacheModel cache(Options(8));
  MakeActive(cache, 0, 2);
  for (uint64_t page = 10; page < 16; ++page) ReadPage(cache, page);
  ReadPage(cache, 16);  // evicts 10
  for (uint64_t page = 20; page < 30; ++page) ReadPage(cache, page);
  ReadPage(cache, 10);  // distance > 10 > 2 active pages
  EXPECT_EQ(cache.active_pages(), 2u);
  EXPECT_TRUE(cache.Contains(kFile, 10));
}

TEST(PageCacheModelTest, RefaultActivationCanBeSwitchedOff) {
  PageCacheOptions options = Options(8);
  options.refault_activation = false;
  PageCacheModel cache(options);
  MakeActive(cache, 0, 2);
  for (uint64_t page = 10; page < 16; ++page) ReadPage(cache, page);
  ReadPage(cache, 16);
  ReadPage(cache, 10);
  EXPECT_EQ(cache.active_pages(), 2u);
  EXPECT_EQ(cache.shadow_entries(), 0u);
}

TEST(PageCacheModelTest, ShadowEntriesAreBoundedByCapacity) {
  PageCacheModel cache(Options(16));
  for (uint64_t page = 0; page < 1000; ++page) ReadPage(cache, page * 3);
  EXPECT_EQ(cache.shadow_entries(), 16u);
}

TEST(PageCacheModelTest, RefaultOneEvictionTooLateStaysInactive) {
  // As QuickRefaultActivates, with one more eviction in between: distance
  // 5 - 2 = 3 > 2 active pages.
  PageCacheModel cache(Options(8));
  MakeActive(cache, 0, 2);
  for (uint64_t page = 10; page < 16; ++page) ReadPage(cache, page);
  ReadPage(cache, 16);  // evicts 10 at clock 2
  ReadPage(cache, 17);  // evicts 11
  ReadPage(cache, 10);  // evicts 12 at clock 4; clock 5
  EXPECT_EQ(cache.active_pages(), 2u);
  EXPECT_TRUE(cache.Contains(kFile, 10));
}

// ---------------------------------------------------------------------------
// The shadow ring: a shadow lasts `capacity` evictions.

TEST(PageCacheModelTest, ShadowLastsCapacityEvictionsEvenIfOthersRefault) {
  PageCacheModel cache(Options(4));
  for (uint64_t page = 0; page < 8; ++page) ReadPage(cache, page);
  ASSERT_EQ(cache.shadow_entries(), 4u);  // of 0, 1, 2, 3
  // Reading 2 evicts 4, which ends 0's shadow (4 evictions after it), then
  // refaults 2: shadows of 1, 3, 4.
  ReadPage(cache, 2);
  EXPECT_EQ(cache.shadow_entries(), 3u);
  // Reading 3 evicts 5, the 4th eviction after 1's: that shadow goes
  // although only 3 remain; 3 refaults. (Keeping the newest 4 shadows
  // would keep 1's, but no refault could tell: its distance, 5, already
  // exceeds any active list this cache can hold.)
  ReadPage(cache, 3);
  EXPECT_EQ(cache.shadow_entries(), 2u);
  EXPECT_EQ(cache.active_pages(), 0u);
  EXPECT_EQ(ResidentPages(cache), 4u);
}

TEST(PageCacheModelTest, DropFileForgetsOnlyThatFilesShadows) {
  PageCacheModel cache(Options(8));
  for (uint64_t page = 0; page < 8; ++page) ReadPage(cache, page, 1);
  for (uint64_t page = 0; page < 8; ++page) ReadPage(cache, page, 2);
  for (uint64_t page = 0; page < 4; ++page) ReadPage(cache, page, 3);
  // Resident: file 2's pages 4-7 and file 3's 0-3. Shadows, the last 8
  // evictions: file 1's pages 4-7 and file 2's 0-3.
  ASSERT_EQ(cache.shadow_entries(), 8u);
  cache.DropFile(1);
  EXPECT_EQ(cache.shadow_entries(), 4u);
  EXPECT_EQ(ResidentPages(cache), 8u);
  cache.DropFile(2);
  EXPECT_EQ(cache.shadow_entries(), 0u);
  EXPECT_EQ(ResidentPages(cache), 4u);
  // The ring goes on from its dead entries.
  for (uint64_t page = 10; page < 30; ++page) ReadPage(cache, page, 3);
  EXPECT_EQ(cache.shadow_entries(), 8u);
  EXPECT_EQ(ResidentPages(cache), 8u);
}

TEST(PageCacheModelTest, GrowingPastTheRingKeepsShadowsThatCanActivate) {
  PageCacheModel cache(Options(8));
  MakeActive(cache, 0, 2);  // clock 2
  for (uint64_t page = 10; page < 16; ++page) ReadPage(cache, page);
  ReadPage(cache, 16);  // evicts 10 at clock 2; clock 3
  cache.SetCapacity(64 * kPageSize);  // a new ring of 64
  EXPECT_EQ(cache.shadow_entries(), 1u);
  // No eviction now: distance 3 - 2 = 1 <= 2 active pages.
  ReadPage(cache, 10);
  EXPECT_EQ(cache.active_pages(), 3u);
  EXPECT_EQ(cache.shadow_entries(), 0u);
  // The larger ring holds 64 shadows.
  for (uint64_t page = 100; page < 300; ++page) ReadPage(cache, page);
  EXPECT_EQ(cache.shadow_entries(), 64u);
}

TEST(PageCacheModelTest, ShrinkingKeepsTheNewestShadows) {
  PageCacheModel cache(Options(16));
  MakeActive(cache, 0, 4);  // clock 4
  for (uint64_t page = 10; page < 22; ++page) ReadPage(cache, page);
  // Evicts 10-13 at clocks 4-7, all within the new capacity's 12.
  cache.SetCapacity(12 * kPageSize);
  EXPECT_EQ(cache.shadow_entries(), 4u);
  // Reading 13 evicts 14 (clock 8; 9 after): distance 9 - 7 = 2 <= 4.
  ReadPage(cache, 13);
  EXPECT_EQ(cache.active_pages(), 5u);
  // Down to 2 pages: 10 more evictions; the shadows of the last 2 stay.
  cache.SetCapacity(2 * kPageSize);
  EXPECT_EQ(ResidentPages(cache), 2u);
  EXPECT_EQ(cache.shadow_entries(), 2u);
  cache.SetCapacity(0);
  EXPECT_EQ(cache.shadow_entries(), 0u);
  cache.SetCapacity(16 * kPageSize);
  for (uint64_t page = 100; page < 140; ++page) ReadPage(cache, page);
  EXPECT_EQ(cache.shadow_entries(), 16u);
}

// ---------------------------------------------------------------------------
// Read-ahead.

TEST(PageCacheModelTest, FirstReadAtOffsetZeroReadsInitialWindow) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  const PageAccessResult result = ReadPage(cache, 0);
  EXPECT_EQ(result.missed_pages, 1u);
  // get_init_ra_size(1, 32): 1 <= 32 / 32, so 4 x 1 page.
  EXPECT_EQ(result.readahead_pages, 3u);
  for (uint64_t page = 0; page < 4; ++page) {
    EXPECT_TRUE(cache.Contains(kFile, page));
  }
  EXPECT_FALSE(cache.Contains(kFile, 4));
}

TEST(PageCacheModelTest, SequentialReadsRampWindowUpToMaximum) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  // One-page reads: the window of 4 marks page 1; each marker starts the
  // next window right after the last one, 4 x while below max/16, then
  // 2 x, capped at 32: 4, 8, 16, 32, 32.
  const std::map<uint64_t, uint64_t> resident_after = {
      {0, 4}, {1, 12}, {4, 28}, {12, 60}, {28, 92}, {60, 124}};
  for (uint64_t page = 0; page <= 60; ++page) {
    const PageAccessResult result = ReadPage(cache, page);
    EXPECT_EQ(result.hit_pages, page == 0 ? 0u : 1u) << page;
    const auto it = resident_after.find(page);
    if (it != resident_after.end()) {
      EXPECT_EQ(ResidentPages(cache), it->second) << page;
    }
  }
}

TEST(PageCacheModelTest, SampledReadaheadKeepsToSampledGroups) {
  // Groups of one page (G = 1, 4 KiB blocks) sampled at 1/2: a sequential
  // stream reads ahead only the pages of sampled groups.
  const Sampler sample({0.5, 1, 4096});
  PageCacheOptions options = Options(1024, /*readahead=*/true);
  options.sample = &sample;
  PageCacheModel cache(options);
  uint64_t sampled = 0, unsampled_resident = 0;
  for (uint64_t page = 0; page < 256; ++page) {
    if (sample.SampledGroup(kFile, page)) {
      ReadPage(cache, page);
      ++sampled;
    }
  }
  for (uint64_t page = 0; page < 512; ++page) {
    unsampled_resident += !sample.SampledGroup(kFile, page) && cache.Contains(kFile, page);
  }
  ASSERT_GT(sampled, 64u);
  EXPECT_EQ(unsampled_resident, 0u);
  // Without the sample the same reads also bring in unsampled pages.
  PageCacheModel unfiltered(Options(1024, /*readahead=*/true));
  for (uint64_t page = 0; page < 256; ++page) {
    if (sample.SampledGroup(kFile, page)) ReadPage(unfiltered, page);
  }
  uint64_t extra = 0;
  for (uint64_t page = 0; page < 512; ++page) {
    extra += !sample.SampledGroup(kFile, page) && unfiltered.Contains(kFile, page);
  }
  EXPECT_GT(extra, 0u);
}

TEST(PageCacheModelTest, AsyncReadaheadStartsOnlyAtTheMarker) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  ReadPage(cache, 0);  // pages 0-3, marker on 1
  ReadPage(cache, 3);
  EXPECT_EQ(ResidentPages(cache), 4u);
  const PageAccessResult result = ReadPage(cache, 1);
  EXPECT_EQ(result.readahead_pages, 8u);
  EXPECT_EQ(ResidentPages(cache), 12u);
  ReadPage(cache, 1);  // the marker is gone
  EXPECT_EQ(ResidentPages(cache), 12u);
}

TEST(PageCacheModelTest, RandomReadsReadOnlyTheRequestedPages) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  for (uint64_t page : {100, 50, 200, 400, 7}) {
    EXPECT_EQ(ReadPage(cache, page).readahead_pages, 0u) << page;
  }
  EXPECT_EQ(ResidentPages(cache), 5u);
  EXPECT_EQ(cache.AccessPages(kFile, 300, 3).readahead_pages, 0u);
}

TEST(PageCacheModelTest, ResidentRunBeforeAMissStartsAStream) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  cache.Insert(Block{kFile, 20 * kPageSize, 6 * kPageSize, 0});  // 20-25
  ReadPage(cache, 500);
  // Page 26: not after the previous read, but 6 pages before it are
  // resident, more than the 1 requested: a window of 6 + 1 pages.
  EXPECT_EQ(ReadPage(cache, 26).readahead_pages, 6u);
  EXPECT_TRUE(cache.Contains(kFile, 32));
  EXPECT_FALSE(cache.Contains(kFile, 33));
}

TEST(PageCacheModelTest, WindowNeverExceedsMaximum) {
  PageCacheOptions options = Options(4096, /*readahead=*/true);
  options.max_readahead_pages = 8;
  PageCacheModel cache(options);
  uint32_t largest = 0;
  for (uint64_t page = 0; page < 300; ++page) {
    largest = std::max(largest, ReadPage(cache, page).readahead_pages);
  }
  EXPECT_EQ(largest, 8u);
}

TEST(PageCacheModelTest, LargeReadIsReadInMaximumWindows) {
  PageCacheModel cache(Options(4096, /*readahead=*/true));
  // 64 > 32 pages: a window of 32 with its marker half-way (1016); the
  // marker reads the next 32 (1032-1063) marking their first page, which
  // the same read reaches and so reads 1064-1095 ahead.
  const PageAccessResult result = cache.AccessPages(kFile, 1000, 64);
  EXPECT_EQ(result.missed_pages, 64u);
  EXPECT_EQ(result.hit_pages, 0u);
  EXPECT_EQ(result.readahead_pages, 32u);
  EXPECT_TRUE(cache.Contains(kFile, 1095));
  EXPECT_FALSE(cache.Contains(kFile, 1096));
}

TEST(PageCacheModelTest, ReadaheadStopsAtEndOfFile) {
  PageCacheModel cache(Options(1024, /*readahead=*/true));
  cache.SetFileSize(kFile, 2 * kPageSize + 1);  // pages 0-2
  ReadPage(cache, 0);
  EXPECT_EQ(ResidentPages(cache), 3u);
}

TEST(PageCacheModelTest, ReadaheadOffReadsOnlyRequestedPages) {
  PageCacheModel cache(Options(1024));
  for (uint64_t page = 0; page < 10; ++page) ReadPage(cache, page);
  EXPECT_EQ(ResidentPages(cache), 10u);
  EXPECT_EQ(cache.AccessPages(kFile, 20, 3).missed_pages, 3u);
  EXPECT_EQ(ResidentPages(cache), 13u);
}

// ---------------------------------------------------------------------------
// One list.

// A page LRU written the obvious way.
class BruteForcePageLru {
 public:
  explicit BruteForcePageLru(size_t pages) : capacity_(pages) {}

  bool Read(const Block& block) {
    bool hit = true;
    for (uint64_t page = block.first_page(); page <= block.last_page();
         ++page) {
      const std::pair<uint64_t, uint64_t> key{block.file_id, page};
      const auto it = where_.find(key);
      if (it != where_.end()) {
        order_.erase(it->second);
      } else {
        hit = false;
      }
      order_.push_front(key);
      where_[key] = order_.begin();
      while (order_.size() > capacity_) {
        where_.erase(order_.back());
        order_.pop_back();
      }
    }
    return hit;
  }

  bool Contains(uint64_t file, uint64_t page) const {
    return where_.count({file, page}) != 0;
  }

 private:
  size_t capacity_;
  std::list<std::pair<uint64_t, uint64_t>> order_;
  std::map<std::pair<uint64_t, uint64_t>,
           std::list<std::pair<uint64_t, uint64_t>>::iterator>
      where_;
};

TEST(PageCacheModelTest, OneListWithoutReadaheadIsAPageLru) {
  PageCacheOptions options = Options(50);
  options.two_queue = false;
  PageCacheModel cache(options);
  BruteForcePageLru expected(50);
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const Block block{rng() % 3, rng() % (40 * kPageSize),
                      static_cast<uint32_t>(1 + rng() % (2 * kPageSize)), 0};
    ASSERT_EQ(cache.Read(block), expected.Read(block)) << i;
  }
  for (uint64_t file = 0; file < 3; ++file) {
    for (uint64_t page = 0; page < 42; ++page) {
      EXPECT_EQ(cache.Contains(file, page), expected.Contains(file, page));
    }
  }
  EXPECT_EQ(ResidentPages(cache), 50u);
  EXPECT_EQ(cache.active_pages(), 0u);
}

// ---------------------------------------------------------------------------
// KernelCache operations.

TEST(PageCacheModelTest, ReadIsAHitOnlyIfEveryPageWasResident) {
  PageCacheModel cache(Options(16));
  const Block two_pages{kFile, kPageSize - 100, 200, 0};  // pages 0 and 1
  EXPECT_EQ(two_pages.page_count(), 2u);
  ReadPage(cache, 0);
  EXPECT_FALSE(cache.Read(two_pages));
  EXPECT_TRUE(cache.Contains(kFile, 1));
  EXPECT_TRUE(cache.Read(two_pages));
  // A neighbour that shares page 1 hits without ever being read.
  EXPECT_TRUE(cache.Read(Block{kFile, kPageSize + 100, 300, 0}));
}

TEST(PageCacheModelTest, SetCapacityShrinksAtOnce) {
  PageCacheModel cache(Options(16));
  for (uint64_t page = 0; page < 16; ++page) ReadPage(cache, page * 2);
  cache.SetCapacity(8 * kPageSize + 100);  // rounds down to 8 pages
  EXPECT_EQ(cache.capacity(), 8 * kPageSize);
  EXPECT_EQ(ResidentPages(cache), 8u);
  EXPECT_FALSE(cache.Contains(kFile, 14));
  EXPECT_TRUE(cache.Contains(kFile, 16));
  EXPECT_LE(cache.shadow_entries(), 8u);
  cache.SetCapacity(0);
  EXPECT_EQ(cache.used_bytes(), 0u);
  EXPECT_FALSE(cache.Read(Block{kFile, 0, 10, 0}));
  EXPECT_EQ(cache.used_bytes(), 0u);
}

TEST(PageCacheModelTest, DropRemovesTheBlocksPages) {
  PageCacheModel cache(Options(16));
  const Block block{kFile, kPageSize - 10, 20, 0};
  cache.Read(block);
  ReadPage(cache, 5);
  cache.Drop(block);
  EXPECT_FALSE(cache.Contains(kFile, 0));
  EXPECT_FALSE(cache.Contains(kFile, 1));
  EXPECT_TRUE(cache.Contains(kFile, 5));
  EXPECT_EQ(ResidentPages(cache), 1u);
  EXPECT_EQ(cache.shadow_entries(), 0u);  // invalidation, not reclaim
}

TEST(PageCacheModelTest, DropFileForgetsPagesShadowsAndReadahead) {
  PageCacheModel cache(Options(8, /*readahead=*/true));
  for (uint64_t page = 0; page < 12; ++page) ReadPage(cache, page, 1);
  ReadPage(cache, 40, 2);
  ASSERT_GT(cache.shadow_entries(), 0u);
  cache.DropFile(1);
  EXPECT_EQ(ResidentPages(cache), 1u);
  EXPECT_EQ(cache.shadow_entries(), 0u);
  EXPECT_TRUE(cache.Contains(2, 40));
  // The stream state went with the file: page 12 is a random read now.
  EXPECT_EQ(ReadPage(cache, 12, 1).readahead_pages, 0u);
  cache.DropFile(99);  // unknown: no effect
}

TEST(PageCacheModelTest, PrefetchChangesNothing) {
  // Two caches see the same random operations; one also gets prefetch
  // hints, for the next block, for unknown files and for the ends of the
  // page range. Every result and count must stay the same.
  PageCacheModel plain(Options(64, /*readahead=*/true));
  PageCacheModel hinted(Options(64, /*readahead=*/true));
  const KernelCache& kernel = hinted;
  std::mt19937_64 rng(7);
  auto random_block = [&] {
    return Block{1 + rng() % 4, rng() % (200 * kPageSize),
                 static_cast<uint32_t>(1 + rng() % (3 * kPageSize)), 0};
  };
  Block next = random_block();
  for (int i = 0; i < 20000; ++i) {
    const Block block = next;
    next = random_block();
    kernel.Prefetch(next);
    hinted.Prefetch(next.file_id, next.first_page());
    hinted.Prefetch(99, 5);  // unknown file
    hinted.Prefetch(block.file_id, 0);
    hinted.Prefetch(block.file_id, (uint64_t{1} << 40) - 1);
    switch (rng() % 8) {
      case 0:
        plain.Insert(block);
        hinted.Insert(block);
        break;
      case 1:
        plain.Drop(block);
        hinted.Drop(block);
        break;
      case 2: {
        const uint64_t page = rng() % 200;
        const PageAccessResult a = plain.AccessPages(block.file_id, page, 2);
        const PageAccessResult b = hinted.AccessPages(block.file_id, page, 2);
        ASSERT_EQ(a.hit_pages, b.hit_pages) << i;
        ASSERT_EQ(a.missed_pages, b.missed_pages) << i;
        ASSERT_EQ(a.readahead_pages, b.readahead_pages) << i;
        break;
      }
      default:
        ASSERT_EQ(plain.Read(block), hinted.Read(block)) << i;
    }
    ASSERT_EQ(plain.active_pages(), hinted.active_pages()) << i;
    ASSERT_EQ(plain.inactive_pages(), hinted.inactive_pages()) << i;
    ASSERT_EQ(plain.shadow_entries(), hinted.shadow_entries()) << i;
  }
  for (uint64_t file = 1; file <= 4; ++file) {
    for (uint64_t page = 0; page < 202; ++page) {
      EXPECT_EQ(plain.Contains(file, page), hinted.Contains(file, page));
    }
  }
}

TEST(PageCacheModelTest, RejectsOffsetsBeyondFourPebibytes) {
  PageCacheModel cache(Options(8));
  EXPECT_THROW(cache.Read(Block{kFile, uint64_t{1} << 60, 10, 0}),
               InputError);
}

TEST(PageCacheModelTest, RejectsReadaheadWindowsBeyond24Bits) {
  PageCacheOptions options = Options(8, /*readahead=*/true);
  options.max_readahead_pages = 1u << 24;
  EXPECT_THROW(PageCacheModel cache(options), InputError);
  options.max_readahead_pages = (1u << 24) - 1;
  EXPECT_NO_THROW(PageCacheModel cache(options));
  options.readahead = false;  // the window is unused then
  options.max_readahead_pages = UINT32_MAX;
  EXPECT_NO_THROW(PageCacheModel cache(options));
}

// ---------------------------------------------------------------------------
// Memory.

// Fills a model of 4064 pages (the online ghost's size) with random and
// sequential reads over 4 times as many pages in 64 files; returns its
// heap bytes per page of capacity.
double BytesPerPage(PageCacheOptions options) {
  constexpr uint64_t kPages = 4064;
  options.capacity_bytes = kPages * kPageSize;
  PageCacheModel cache(options);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t page = rng() % (4 * kPages);
    cache.AccessPages(page % 64, i % 2 == 0 ? page / 64 : i / 128 % 64, 1);
  }
  EXPECT_EQ(ResidentPages(cache), kPages);
  return static_cast<double>(cache.MemoryUsage()) / kPages;
}

TEST(PageCacheModelTest, MemoryStaysNearTheCapacitysNeed) {
  // Per page of capacity: a 16-byte slot, a 16-byte ring entry and two
  // 16-byte buckets at 1/2 load (64 B), or 3/4 when sampled (42.7 B);
  // plus 64 files' state.
  PageCacheOptions options = Options(0, /*readahead=*/true);
  EXPECT_LE(BytesPerPage(options), 96 + 2);
  const Sampler sample({0.5, 1, 4096});
  options.sample = &sample;
  EXPECT_LE(BytesPerPage(options), 75 + 2);
  options.refault_activation = false;  // no shadows
  EXPECT_LE(BytesPerPage(options), 38 + 2);
}

TEST(PageCacheModelTest, LargeCapacityAllocatesOnlyWhatItHolds) {
  // The offline simulators build models of many GiB for short traces.
  PageCacheModel cache(Options(uint64_t{1} << 28));  // 1 TiB
  EXPECT_LE(cache.MemoryUsage(), 32u << 10);
  for (uint64_t page = 0; page < 10000; ++page) ReadPage(cache, page);
  EXPECT_LE(cache.MemoryUsage(), 10000u * 80);
}

// ---------------------------------------------------------------------------
// Recorded results.

// A long mix of every mutating call: random one-page reads, sequential
// streams, multi-page reads, block reads, inserts, drops, DropFile (with
// file ids reused afterwards) and SetCapacity (shrinking, growing past the
// first size, down to 0 and back). Every result and list size is folded
// into a running hash; returns the hash after every `every` calls.
std::vector<uint64_t> RunMix(PageCacheOptions options, uint64_t seed,
                             int calls, int every) {
  std::mt19937_64 rng(seed);
  const uint64_t base = options.capacity_bytes / kPageSize;
  PageCacheModel cache(options);
  uint64_t hash = seed;
  auto fold = [&](uint64_t value) { hash = Mix64(hash ^ value); };
  uint64_t files[6] = {1, 2, 3, 4, 5, 6};
  uint64_t next[6] = {};
  std::vector<uint64_t> checkpoints;
  for (int i = 1; i <= calls; ++i) {
    const int f = static_cast<int>(rng() % 6);
    const uint64_t span = 3 * base;
    const int op = static_cast<int>(rng() % 100);
    if (op < 40) {  // random one-page read
      const PageAccessResult r = cache.AccessPages(files[f], rng() % span, 1);
      fold(r.hit_pages + 10 * r.missed_pages + 100 * r.readahead_pages);
    } else if (op < 70) {  // a sequential stream, 1-3 pages a read
      const uint32_t count = 1 + static_cast<uint32_t>(rng() % 3);
      const PageAccessResult r = cache.AccessPages(files[f], next[f], count);
      next[f] = (next[f] + count) % span;
      fold(r.hit_pages + 10 * r.missed_pages + 100 * r.readahead_pages);
    } else if (op < 80) {  // a larger read anywhere
      const PageAccessResult r = cache.AccessPages(
          files[f], rng() % span, 1 + static_cast<uint32_t>(rng() % 70));
      fold(r.hit_pages + 10 * r.missed_pages + 100 * r.readahead_pages);
    } else if (op < 90) {  // a block read, maybe straddling pages
      const Block block{files[f], rng() % (span * kPageSize),
                        1 + static_cast<uint32_t>(rng() % 9000), 0};
      fold(cache.Read(block));
    } else if (op < 94) {
      cache.Insert(Block{files[f], rng() % (span * kPageSize),
                         1 + static_cast<uint32_t>(rng() % 9000), 0});
    } else if (op < 97) {
      cache.Drop(Block{files[f], rng() % (span * kPageSize),
                       1 + static_cast<uint32_t>(rng() % 9000), 0});
    } else if (op < 98) {
      cache.DropFile(files[f]);
      if (rng() % 2 == 0) files[f] += 6;  // a new file in its place
      next[f] = 0;
    } else {
      const uint64_t sizes[] = {0, base / 4, base / 2, base, base + 1,
                                2 * base, 3 * base + 7};
      cache.SetCapacity(sizes[rng() % 7] * kPageSize);
    }
    fold(cache.active_pages());
    fold(cache.inactive_pages());
    if (i % every == 0) {
      for (const uint64_t file : files) {
        for (uint64_t page = 0; page < span; ++page) {
          fold(cache.Contains(file, page));
        }
      }
      checkpoints.push_back(hash);
    }
  }
  return checkpoints;
}

// RunMix's checkpoints as the list-based model (commit 33449b8, one slot
// per shadow on a shadow list) produced them: the slot layout, shadow ring
// and index sizing must change no result. If a change to the model's
// behaviour is intended, record them anew from the changed model.
TEST(PageCacheModelTest, MatchesTheRecordedResultsOfTheListBasedModel) {
  const Sampler sample({0.5, 1, 4096});
  struct Case {
    const char* name;
    PageCacheOptions options;
    uint64_t seed;
    std::vector<uint64_t> expected;
  };
  std::vector<Case> cases;
  PageCacheOptions options = Options(200, /*readahead=*/true);
  cases.push_back({"linux", options, 1,
      {0x1a1719521f0e50e1, 0x1004a5b394396f6e, 0x222289f044f8b06b,
       0x237da8adcccb738f, 0x88ed3f0d37579e4c, 0x17d1482944bf289a,
       0xc08d9d7a5d7dd893, 0xb958dc63a5566cd4, 0x39a591065d91c0dd,
       0x639077c0bbc4ccdc}});
  options = Options(300, /*readahead=*/true);
  options.max_readahead_pages = 8;
  options.balance_scale = 4096;
  cases.push_back({"small windows, scaled", options, 2,
      {0x08f850d274041c63, 0x9974c749f4936077, 0x3b43bec680162cd4,
       0x39a89266eb96f163, 0x0088d84420ed1f82, 0x364794b84ffdea0b,
       0x17cf88f756aca687, 0x67b8e2517ee5f136, 0x441b23c4cfd884c5,
       0x96b5c01c977932df}});
  options = Options(150);
  options.refault_activation = false;
  cases.push_back({"no refaults", options, 3,
      {0x346ea2c97145b39f, 0x6d7865bd6efa71af, 0x28aaca09448c1c9d,
       0x3083f5c08e6ddd1c, 0x0fd1aced1a7fe725, 0xd81950125c7589c5,
       0xb4a6752b0832698a, 0x19f3c54e75a1a351, 0xb65ccaa70ad31480,
       0xdd54b534eb8990d0}});
  options = Options(100);
  options.two_queue = false;
  cases.push_back({"lru", options, 4,
      {0x2d4cf314faa8faec, 0x1fe0e0a3c9cd896c, 0x3c309e82ac1c7492,
       0x778341e025ab129e, 0x56a95a7471aec203, 0x46aab1187545134b,
       0x3992849129e6d7db, 0xe62bb75734ceecbb, 0xbcacc6b4fba48ab2,
       0x66f48e4432f13f17}});
  options = Options(128, /*readahead=*/true);
  options.sample = &sample;
  cases.push_back({"sampled", options, 5,
      {0x6ba77750b6dbd88b, 0x3ce574cf457ef5ef, 0x6f6237b45f7d99c5,
       0x651fda8febbc137b, 0xf469df3e3b1d2f7d, 0x0e983ad0215f03ea,
       0x768e33f3b92c9fc2, 0xebdd2e97a5d7bfab, 0xfe36ec2868ea9fd5,
       0x8f1e2a00875d9af8}});
  for (const Case& c : cases) {
    const std::vector<uint64_t> got = RunMix(c.options, c.seed, 20000, 2000);
    ASSERT_EQ(got.size(), c.expected.size()) << c.name;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], c.expected[i])
          << c.name << ": first difference by call " << (i + 1) * 2000;
    }
  }
}

}  // namespace
}  // namespace symbiosis
