#include "engines/rocksdb/flash_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/error.h"
#include "engines/rocksdb/cache_key_map.h"
#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

// A key as RocksDB builds one: the table's 8-byte prefix, then 8 bytes.
std::string Key(uint64_t prefix, uint64_t low) { return CacheKeyMap::Key(prefix, low); }

// Distinct bytes per key, of a size that varies with it.
std::string Value(uint64_t prefix, uint64_t low, size_t size = 0) {
  if (size == 0) size = 1000 + (prefix * 131 + low * 17) % 3500;
  std::mt19937_64 rng(prefix * 1'000'003 + low);
  std::string v(size, '\0');
  for (char& c : v) c = static_cast<char>(rng());
  return v;
}

FlashStoreOptions SmallStore(const std::string& path, uint64_t regions = 8) {
  FlashStoreOptions o;
  o.path = path;
  o.region_bytes = 64u << 10;
  o.capacity_bytes = regions * o.region_bytes;
  o.expected_entry_bytes = 1024;  // the values here are 1000-4500 bytes
  return o;
}

TEST(FlashStoreTest, EntriesAreServedOnceTheirRegionIsWritten) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash")));
  std::string got;
  ASSERT_TRUE(store.Append(Key(1, 1), Value(1, 1)));
  EXPECT_FALSE(store.Lookup(Key(1, 1), &got));  // still in the open region
  for (uint64_t low = 2; low <= 30; ++low) ASSERT_TRUE(store.Append(Key(1, low), Value(1, low)));
  store.Flush();
  for (uint64_t low = 1; low <= 30; ++low) {
    ASSERT_TRUE(store.Lookup(Key(1, low), &got)) << low;
    EXPECT_EQ(got, Value(1, low)) << low;
    EXPECT_TRUE(store.Contains(Key(1, low)));
  }
  EXPECT_FALSE(store.Lookup(Key(1, 31), &got));
  EXPECT_FALSE(store.Lookup(Key(2, 1), &got));
  const FlashStoreStats s = store.Stats();
  EXPECT_EQ(s.entries, 30u);
  EXPECT_GE(s.regions_written, 1u);
  EXPECT_EQ(s.hits, 30u);
  EXPECT_EQ(s.mismatches, 0u);
  EXPECT_GT(s.dram_bytes, 0u);
}

TEST(FlashStoreTest, TheOldestRegionIsReclaimedFirst) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash"), /*regions=*/4));
  // ~2 KiB entries, ~30 a region: 600 entries pass through 4 regions
  // about five times.
  for (uint64_t low = 0; low < 600; ++low) {
    ASSERT_TRUE(store.Append(Key(7, low), Value(7, low, 2000)));
  }
  store.Flush();
  std::string got;
  for (uint64_t low = 0; low < 100; ++low) EXPECT_FALSE(store.Lookup(Key(7, low), &got)) << low;
  for (uint64_t low = 590; low < 600; ++low) {
    ASSERT_TRUE(store.Lookup(Key(7, low), &got)) << low;
    EXPECT_EQ(got, Value(7, low, 2000));
  }
  const FlashStoreStats s = store.Stats();
  EXPECT_GT(s.regions_reclaimed, 0u);
  EXPECT_LE(s.entries, 4u * (64u << 10) / 2000);  // no more than four regions hold
  EXPECT_GE(s.entries, 3u * (64u << 10) / 2100 - 4);
}

// 16 regions, each full of one table's 32 entries; a table's entries
// dropped free its region first if it is among the oldest four.
TEST(FlashStoreTest, AReclaimTakesTheEmptiestOfTheOldestRegions) {
  testing::TempDir dir("symbiosis_flash_store");
  for (const uint64_t dropped : {102, 109}) {
    FlashStoreOptions o = SmallStore(dir.path("flash" + std::to_string(dropped)), 16);
    o.expected_entry_bytes = 256;  // a sparse index: no bucket overflows to blur the count
    FlashStore store(o);
    for (uint64_t table = 100; table < 116; ++table) {
      for (uint64_t low = 0; low < 32; ++low) {
        ASSERT_TRUE(store.Append(Key(table, low), Value(table, low, 2000)));
      }
    }
    store.Flush();
    ASSERT_EQ(store.Stats().entries, 16u * 32);
    store.DropFiles({dropped});
    for (uint64_t low = 0; low < 33; ++low) {  // the 33rd writes a region
      ASSERT_TRUE(store.Append(Key(200, low), Value(200, low, 2000)));
    }
    std::string got;
    // Table 102 sat in the third-oldest region: it went, and table 100's,
    // the oldest, stays. Table 109 lay beyond the oldest four: the oldest
    // region went, as FIFO takes it.
    EXPECT_EQ(store.Lookup(Key(100, 5), &got), dropped == 102) << dropped;
    EXPECT_TRUE(store.Lookup(Key(101, 5), &got));
    EXPECT_EQ(store.Stats().entries, 16u * 32 - 32 + 33 - (dropped == 102 ? 0 : 32));
  }
}

TEST(FlashStoreTest, ACorruptedEntryIsAMissNeverAWrongValue) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash")));
  for (uint64_t low = 0; low < 20; ++low) ASSERT_TRUE(store.Append(Key(3, low), Value(3, low, 1000)));
  store.Flush();
  // Entries are 32 + 1000 bytes from the start of region 0: flip a byte of
  // the first's value, of the second's header, and of the third's key.
  const int fd = open(store.file_path().c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  for (const off_t at : {off_t{32 + 500}, off_t{1032 + 4}, off_t{2 * 1032 + 8 + 3}}) {
    char byte = 0;
    const int rfd = open(store.file_path().c_str(), O_RDONLY);
    ASSERT_EQ(pread(rfd, &byte, 1, at), 1);
    close(rfd);
    byte ^= 0x5a;
    ASSERT_EQ(pwrite(fd, &byte, 1, at), 1);
  }
  fsync(fd);
  close(fd);
  std::string got;
  for (uint64_t low = 0; low < 3; ++low) EXPECT_FALSE(store.Lookup(Key(3, low), &got)) << low;
  for (uint64_t low = 3; low < 20; ++low) {
    ASSERT_TRUE(store.Lookup(Key(3, low), &got)) << low;
    EXPECT_EQ(got, Value(3, low, 1000));
  }
  EXPECT_EQ(store.Stats().mismatches, 3u);
}

TEST(FlashStoreTest, AStoreOpenedAgainStartsEmpty) {
  testing::TempDir dir("symbiosis_flash_store");
  {
    FlashStore store(SmallStore(dir.path("flash")));
    for (uint64_t low = 0; low < 20; ++low) ASSERT_TRUE(store.Append(Key(4, low), Value(4, low)));
    store.Flush();
  }
  FlashStore again(SmallStore(dir.path("flash")));
  std::string got;
  for (uint64_t low = 0; low < 20; ++low) EXPECT_FALSE(again.Lookup(Key(4, low), &got));
  EXPECT_EQ(again.Stats().entries, 0u);
}

TEST(FlashStoreTest, FilesAreDroppedAtOnceOrCountedAsInvalid) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash"), 16));
  for (uint64_t low = 0; low < 40; ++low) {
    for (uint64_t prefix : {11, 12, 13}) ASSERT_TRUE(store.Append(Key(prefix, low), Value(prefix, low, 1500)));
  }
  store.Flush();
  ASSERT_EQ(store.Stats().entries, 120u);
  store.MarkFilesDeleted({11});
  EXPECT_EQ(store.Stats().invalid_entries, 40u);
  store.DropFiles({12});
  FlashStoreStats s = store.Stats();
  EXPECT_EQ(s.entries, 80u);
  EXPECT_EQ(s.dropped_entries, 40u);
  EXPECT_EQ(s.invalid_entries, 40u);
  std::string got;
  for (uint64_t low = 0; low < 40; ++low) {
    EXPECT_TRUE(store.Lookup(Key(11, low), &got));  // passive: still held
    EXPECT_FALSE(store.Lookup(Key(12, low), &got));
    EXPECT_TRUE(store.Lookup(Key(13, low), &got));
  }
  // A deleted file's block appended later counts as invalid too, and one
  // waiting in the open region is dropped with its file.
  ASSERT_TRUE(store.Append(Key(11, 100), Value(11, 100)));
  ASSERT_TRUE(store.Append(Key(13, 100), Value(13, 100)));
  store.DropFiles({13});
  store.Flush();
  s = store.Stats();
  EXPECT_EQ(s.invalid_entries, 41u);
  EXPECT_EQ(s.entries, 41u);
  EXPECT_FALSE(store.Lookup(Key(13, 100), &got));
}

TEST(FlashStoreTest, CapacityShrinksAndGrowsOnline) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash"), 8));
  for (uint64_t low = 0; low < 200; ++low) ASSERT_TRUE(store.Append(Key(5, low), Value(5, low, 2000)));
  store.Flush();
  const uint64_t before = store.Stats().entries;
  store.SetCapacity(2 * (64u << 10));
  EXPECT_EQ(store.capacity_bytes(), 2u * (64u << 10));
  EXPECT_EQ(std::filesystem::file_size(store.file_path()), 2u * (64u << 10));
  const uint64_t after = store.Stats().entries;
  EXPECT_LT(after, before);
  EXPECT_LE(after, 2u * (64u << 10) / 2000);
  std::string got;
  size_t held = 0;
  for (uint64_t low = 0; low < 200; ++low) {
    if (store.Lookup(Key(5, low), &got)) {
      EXPECT_EQ(got, Value(5, low, 2000));
      ++held;
    }
  }
  EXPECT_EQ(held, after);
  store.SetCapacity(8 * (64u << 10));
  for (uint64_t low = 200; low < 300; ++low) ASSERT_TRUE(store.Append(Key(5, low), Value(5, low, 2000)));
  store.Flush();
  for (uint64_t low = 200; low < 300; ++low) {
    ASSERT_TRUE(store.Lookup(Key(5, low), &got)) << low;
    EXPECT_EQ(got, Value(5, low, 2000));
  }
  EXPECT_THROW(store.SetCapacity(64u << 10), InputError);  // one region
}

TEST(FlashStoreTest, BadOptionsAreOneLineErrors) {
  testing::TempDir dir("symbiosis_flash_store");
  auto message = [](const FlashStoreOptions& o) -> std::string {
    try {
      FlashStore store(o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  FlashStoreOptions o = SmallStore(dir.path("flash"));
  o.region_bytes = 100'000;
  EXPECT_NE(message(o).find("multiple of 4 KiB"), std::string::npos) << message(o);
  o = SmallStore(dir.path("flash"));
  o.capacity_bytes = o.region_bytes;
  EXPECT_NE(message(o).find("below two regions"), std::string::npos) << message(o);
  o = SmallStore(dir.path("flash"));
  o.capacity_bytes = uint64_t{1} << 40;
  EXPECT_NE(message(o).find("its index addresses"), std::string::npos) << message(o);
  o = SmallStore(dir.path("no/such/dir/flash"));
  EXPECT_NE(message(o).find("cannot open the flash tier's file"), std::string::npos) << message(o);
  o = SmallStore("");
  EXPECT_NE(message(o).find("no path"), std::string::npos) << message(o);
  // A directory takes a file of the tier's own.
  o = SmallStore(dir.path(""));
  FlashStore store(o);
  EXPECT_EQ(std::filesystem::path(store.file_path()).filename(), "symbiosis-flash-tier");
}

// Readers look up while the writer appends, reclaims and drops: every hit
// is the value appended under its key.
TEST(FlashStoreTest, ReadersRacingTheWriterSeeOnlyRightValues) {
  testing::TempDir dir("symbiosis_flash_store");
  FlashStore store(SmallStore(dir.path("flash"), 4));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hits{0}, wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      std::string got;
      while (!stop.load()) {
        const uint64_t prefix = 20 + rng() % 4, low = rng() % 400;
        if (store.Lookup(Key(prefix, low), &got)) {
          ++hits;
          if (got != Value(prefix, low)) ++wrong;
        }
      }
    });
  }
  for (int round = 0; round < 20; ++round) {
    for (uint64_t low = 0; low < 400; ++low) store.Append(Key(20 + round % 4, low), Value(20 + round % 4, low));
    store.DropFiles({uint64_t(20 + (round + 2) % 4)});
    store.Flush();
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
}

// A device that fills: the store turns itself off, and says why. Needs a
// small tmpfs, mounted here (root).
TEST(FlashStoreTest, AFullDeviceTurnsTheStoreOff) {
  testing::TempDir dir("symbiosis_flash_store");
  const std::string mount_point = dir.path("tmpfs");
  std::filesystem::create_directories(mount_point);
  if (mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=2m") != 0) {
    GTEST_SKIP() << "cannot mount a 2 MiB tmpfs to fill (" << std::strerror(errno)
                 << "); the full-device case is not checked here";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  FlashStoreOptions o = SmallStore(mount_point + "/flash", 16);  // 1 MiB
  FlashStore store(o);
  {  // another file takes all but 128 KiB
    std::ofstream filler(mount_point + "/filler", std::ios::binary);
    const std::string chunk(64 << 10, 'x');
    for (int i = 0; i < 30; ++i) filler.write(chunk.data(), chunk.size());
  }
  uint64_t low = 0;
  while (!store.Stats().failed && low < 2000) store.Append(Key(9, low), Value(9, low)), ++low;
  const FlashStoreStats s = store.Stats();
  ASSERT_TRUE(s.failed);
  EXPECT_NE(s.failure.find("No space left on device"), std::string::npos) << s.failure;
  EXPECT_EQ(s.entries, 0u);
  std::string got;
  EXPECT_FALSE(store.Lookup(Key(9, 0), &got));
  EXPECT_FALSE(store.Append(Key(9, 5000), Value(9, 5000)));
}

}  // namespace
}  // namespace symbiosis::rocksdb
