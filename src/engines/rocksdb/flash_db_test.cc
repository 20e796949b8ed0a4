// The flash tier inside Debian's RocksDB 7.8.3 (engine budget): it serves
// what the DRAM caches dropped and every value read is the one written,
// while compactions delete tables, while bytes of the flash file are
// flipped, when the flash device fills, and with readers, a compacting
// writer and capacity changes all at once; bad configurations are
// one-line errors.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/rocksdb.h"
#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

std::string Key(int i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "key%08d", i);
  return buffer;
}

// "key#version#" and 4000 bytes that only (i, version) give: a reader can
// check every byte of what it got.
std::string Value(int i, uint64_t version) {
  std::string v = Key(i) + "#" + std::to_string(version) + "#";
  std::mt19937_64 rng(i * 1'000'003ull + version);
  while (v.size() < 4000) v.push_back(static_cast<char>('a' + rng() % 26));
  return v;
}

bool IsValueOf(int i, const std::string& v) {
  const std::string head = Key(i) + "#";
  if (v.compare(0, head.size(), head) != 0) return false;
  const uint64_t version = std::strtoull(v.c_str() + head.size(), nullptr, 10);
  return v == Value(i, version);
}

class RocksDbFlashTest : public ::testing::Test {
 protected:
  RocksDbFlashTest() : temp_("symbiosis_flash_db"), dir_(temp_.path("")) {}

  // An engine budget of 36 MiB whose DRAM is all block cache (so a block
  // it drops is found on flash or nowhere), a 16 MiB flash tier in
  // `flash_path`, storage 500 us slower than the disk.
  static Options FlashOptions(const std::string& flash_path) {
    Options o;
    o.engine.create_if_missing = true;
    o.budget.budget = Budget::kEngine;
    o.budget.memory_bytes = 36ull << 20;
    o.budget.adaptive = false;
    o.budget.flash.path = flash_path;
    o.budget.flash.capacity_bytes = 16ull << 20;
    o.budget.flash.region_bytes = 256u << 10;
    o.budget.flash.write_queue_bytes = 1u << 20;
    o.budget.static_ma_bytes = o.budget.memory_bytes - FlashTierDramBytes(o.budget.flash);
    o.budget.slow_storage.median_ns = o.budget.slow_storage.p99_ns = 500'000;
    return o;
  }

  // 12,000 keys of 4 KB (48 MB of tables), version 0.
  void Fill(Db* db, int keys = kKeys) {
    for (int i = 0; i < keys; ++i) ASSERT_TRUE(db->db()->Put({}, Key(i), Value(i, 0)).ok());
    ASSERT_TRUE(db->db()->Flush({}).ok());
  }

  // `threads` readers of `reads` random keys each; returns the values that
  // were not the key's.
  int ReadAndCheck(Db* db, int threads, int reads, int keys = kKeys) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < threads; ++t) {
      readers.emplace_back([&, t] {
        std::mt19937_64 rng(t + 100);
        std::string value;
        for (int n = 0; n < reads; ++n) {
          const int i = static_cast<int>(rng() % keys);
          if (!db->db()->Get({}, Key(i), &value).ok() || !IsValueOf(i, value)) ++wrong;
        }
      });
    }
    for (std::thread& r : readers) r.join();
    return wrong.load();
  }

  static constexpr int kKeys = 12'000;
  testing::TempDir temp_;
  const std::string dir_;
};

TEST_F(RocksDbFlashTest, FlashServesWhatTheBlockCacheDroppedAndValuesAreRight) {
  std::unique_ptr<Db> db;
  const ::rocksdb::Status s = Open(FlashOptions(dir_ + "/flash"), dir_ + "/db", &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Fill(db.get());
  EXPECT_EQ(ReadAndCheck(db.get(), 4, 6000), 0);
  const Stats stats = db->GetStats();
  const FlashTierStats& f = stats.flash;
  ASSERT_TRUE(f.enabled);
  EXPECT_GT(f.inserts_written, 0u);
  EXPECT_GT(f.flash_hits, 0u);
  EXPECT_EQ(f.mismatches, 0u);
  EXPECT_GT(f.mean_storage_read_ns, 500'000u);  // the emulated latency is seen
  // The bypass follows what it measured (a sanitizer's build can make a
  // flash hit slower than the emulated storage).
  EXPECT_EQ(f.flash_pays, f.mean_flash_hit_ns < f.mean_storage_read_ns)
      << f.mean_flash_hit_ns << " ns a flash hit, " << f.mean_storage_read_ns << " a read";
  EXPECT_GT(stats.reads, stats.second_tier_hits);
  const Options options = FlashOptions(dir_ + "/flash");
  EXPECT_EQ(stats.memory_bytes, (36ull << 20) - FlashTierDramBytes(options.budget.flash));
  EXPECT_LE(f.dram_bytes, FlashTierDramBytes(options.budget.flash));
}

TEST_F(RocksDbFlashTest, CompactionsKeepDeletedTablesOffFlash) {
  Options options = FlashOptions(dir_ + "/flash");
  options.engine.write_buffer_size = 1 << 20;
  options.engine.level0_file_num_compaction_trigger = 2;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(options, dir_ + "/db", &db).ok());
  constexpr int kFew = 4000;
  Fill(db.get(), kFew);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::thread writer([&] {
    for (uint64_t version = 1; !stop.load(); ++version) {
      for (int i = 0; i < kFew && !stop.load(); i += 3) {
        if (!db->db()->Put({}, Key(i), Value(i, version)).ok()) ++wrong;
      }
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      std::string value;
      for (int n = 0; n < 5000; ++n) {
        const int i = static_cast<int>(rng() % kFew);
        if (!db->db()->Get({}, Key(i), &value).ok() || !IsValueOf(i, value)) ++wrong;
      }
    });
  }
  for (std::thread& r : readers) r.join();
  stop = true;
  writer.join();
  EXPECT_EQ(wrong.load(), 0);
  const FlashTierStats f = db->GetStats().flash;
  EXPECT_GT(f.inserts_written, 0u);
  // Tables were deleted under the tier: their blocks were turned away or
  // dropped, and none is left as invalid.
  EXPECT_GT(f.inserts_invalid + f.dropped_entries, 0u);
  EXPECT_EQ(f.invalid_entries, 0u);
}

TEST_F(RocksDbFlashTest, FlippedBytesOnFlashAreMissesNeverWrongValues) {
  const std::string flash = dir_ + "/flash";
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(FlashOptions(flash), dir_ + "/db", &db).ok());
  Fill(db.get());
  EXPECT_EQ(ReadAndCheck(db.get(), 2, 3000), 0);  // the tier fills
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    const int fd = open(flash.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    std::mt19937_64 rng(7);
    while (!stop.load()) {
      const off_t size = lseek(fd, 0, SEEK_END);
      if (size <= 0) continue;
      char byte = 0;
      const off_t at = static_cast<off_t>(rng() % static_cast<uint64_t>(size));
      if (pread(fd, &byte, 1, at) == 1) {
        byte = static_cast<char>(byte ^ (1 + rng() % 255));
        if (pwrite(fd, &byte, 1, at) != 1) break;
      }
      if (rng() % 64 == 0) fdatasync(fd);
    }
    close(fd);
  });
  EXPECT_EQ(ReadAndCheck(db.get(), 4, 6000), 0);
  stop = true;
  flipper.join();
  const FlashTierStats f = db->GetStats().flash;
  EXPECT_GT(f.mismatches, 0u);  // flipped entries were read, and refused
  EXPECT_GT(f.flash_hits, 0u);
}

TEST_F(RocksDbFlashTest, AFullFlashDeviceTurnsTheTierOffAndTheDbServes) {
  const std::string mount_point = dir_ + "/tmpfs";
  std::filesystem::create_directories(mount_point);
  if (mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=20m") != 0) {
    GTEST_SKIP() << "cannot mount a 20 MiB tmpfs to fill (" << std::strerror(errno)
                 << "); the full-device case is checked by FlashStoreTest only where it can be";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(FlashOptions(mount_point + "/flash"), dir_ + "/db", &db).ok());
  Fill(db.get());
  {  // the device fills: 1 MiB is left
    std::ofstream filler(mount_point + "/filler", std::ios::binary);
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 19; ++i) filler.write(chunk.data(), chunk.size());
  }
  EXPECT_EQ(ReadAndCheck(db.get(), 4, 6000), 0);
  const FlashTierStats f = db->GetStats().flash;
  ASSERT_TRUE(f.failed);
  EXPECT_NE(f.failure.find("No space left on device"), std::string::npos) << f.failure;
  EXPECT_EQ(ReadAndCheck(db.get(), 2, 2000), 0);  // and keeps serving
}

// Eight readers check every value while a writer compacts all the time and
// the flash tier and the block cache change size (run under TSan too).
TEST_F(RocksDbFlashTest, EightReadersACompactingWriterAndCapacityChanges) {
  Options options = FlashOptions(dir_ + "/flash");
  options.engine.write_buffer_size = 512 << 10;
  options.engine.level0_file_num_compaction_trigger = 2;
  options.budget.static_ma_bytes = 4 << 20;  // a compressed cache below too
  std::shared_ptr<SharedBudget> budget;
  ASSERT_TRUE(SharedBudget::Create(options.budget, &budget).ok());
  std::unique_ptr<Db> db;
  ASSERT_TRUE(budget->Open(options.engine, options.table, dir_ + "/db", {}, &db).ok());
  constexpr int kFew = 3000;
  Fill(db.get(), kFew);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::thread writer([&] {
    for (uint64_t version = 1; !stop.load(); ++version) {
      for (int i = 0; i < kFew && !stop.load(); i += 5) {
        if (!db->db()->Put({}, Key(i), Value(i, version)).ok()) ++wrong;
      }
    }
  });
  std::thread resizer([&] {
    for (uint64_t n = 0; !stop.load(); ++n) {
      if (!budget->SetFlashCapacity((2 + n % 15) * (1ull << 20)).ok()) ++wrong;
      budget->SetAppCacheCapacity((1 + n % 4) * (2ull << 20));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      std::string value;
      for (int n = 0; n < 2000; ++n) {
        const int i = static_cast<int>(rng() % kFew);
        if (!db->db()->Get({}, Key(i), &value).ok() || !IsValueOf(i, value)) ++wrong;
      }
    });
  }
  for (std::thread& r : readers) r.join();
  stop = true;
  writer.join();
  resizer.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(budget->GetStats().flash.inserts, 0u);
}

TEST_F(RocksDbFlashTest, BadConfigurationsAreOneLineErrors) {
  auto error = [&](const Options& o) {
    std::unique_ptr<Db> db;
    const ::rocksdb::Status s = Open(o, dir_ + "/db", &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_EQ(s.ToString().find('\n'), std::string::npos);
    return s.ToString();
  };
  Options o = FlashOptions(dir_ + "/no/such/dir/flash");
  EXPECT_NE(error(o).find("cannot open the flash tier's file"), std::string::npos);
  o = FlashOptions(dir_ + "/flash");
  o.budget.flash.capacity_bytes = o.budget.flash.region_bytes;
  EXPECT_NE(error(o).find("below two regions"), std::string::npos);
  o = FlashOptions(dir_ + "/flash");
  o.budget.budget = Budget::kKernel;
  o.budget.memory_bytes = 64ull << 20;
  EXPECT_NE(error(o).find("need the engine budget"), std::string::npos);
  o = FlashOptions(dir_ + "/flash");
  o.budget.memory_bytes = 33ull << 20;  // the tier's DRAM leaves too little
  o.budget.static_ma_bytes = 8 << 20;
  EXPECT_NE(error(o).find("for the caches"), std::string::npos);
  o = FlashOptions(dir_ + "/flash");
  o.budget.static_ma_bytes = o.budget.memory_bytes;  // M, not what is left
  EXPECT_NE(error(o).find("beside the flash tier"), std::string::npos);
  o = FlashOptions(dir_ + "/flash");
  o.budget.slow_storage.p99_ns = 1;
  EXPECT_NE(error(o).find("below its median"), std::string::npos);
  // No tier: its capacity cannot be set.
  std::shared_ptr<SharedBudget> plain;
  Options none = FlashOptions("");
  none.budget.static_ma_bytes = 8 << 20;
  ASSERT_TRUE(SharedBudget::Create(none.budget, &plain).ok());
  EXPECT_TRUE(plain->SetFlashCapacity(1 << 30).IsNotSupported());
}

}  // namespace
}  // namespace symbiosis::rocksdb
