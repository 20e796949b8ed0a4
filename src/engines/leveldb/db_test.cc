// End-to-end tests of Symbiosis inside Debian's LevelDB: the engine stores
// and returns exactly what it does without Symbiosis, the adapter sees the
// foreground block accesses, and bad budgets are refused.

#include <gtest/gtest.h>
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/write_batch.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engines/leveldb/table_env.h"
#include "symbiosis/leveldb.h"
#include "testing/test_support.h"

namespace symbiosis::leveldb {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

std::string Key(uint64_t i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "key%012llu", static_cast<unsigned long long>(i));
  return buffer;
}

// Half random, half repeated: snappy compresses it to about 0.5.
std::string Value(uint64_t i, uint64_t version) {
  std::mt19937_64 rng(i * 1000003 + version);
  std::string value(400, '\0');
  for (size_t j = 0; j < 200; ++j) value[j] = static_cast<char>('a' + rng() % 26);
  for (size_t j = 200; j < 400; ++j) value[j] = value[j - 200];
  return value;
}

// The same writes (puts, overwrites, deletes) to any DB; returns the
// expected contents.
std::map<std::string, std::string> WriteHistory(::leveldb::DB* db, uint64_t keys) {
  std::map<std::string, std::string> expected;
  ::leveldb::WriteOptions write;
  for (uint64_t round = 0; round < 3; ++round) {
    for (uint64_t i = round; i < keys; i += round + 1) {
      ::leveldb::WriteBatch batch;
      const std::string key = Key(i);
      if (round == 2 && i % 5 == 0) {
        batch.Delete(key);
        expected.erase(key);
      } else {
        batch.Put(key, Value(i, round));
        expected[key] = Value(i, round);
      }
      EXPECT_TRUE(db->Write(write, &batch).ok());
    }
  }
  db->CompactRange(nullptr, nullptr);
  return expected;
}

Options SmallOptions(Budget budget, bool adaptive) {
  Options options;
  options.engine.create_if_missing = true;
  options.engine.write_buffer_size = 256 << 10;  // many table files
  options.engine.max_file_size = 256 << 10;
  options.budget = budget;
  options.memory_bytes = 64ull << 20;
  options.adaptive = adaptive;
  options.static_ma_bytes = 1 << 20;
  options.controller.initial_ma_bytes = 1 << 20;
  options.controller.default_ma_bytes = 1 << 20;
  return options;
}

std::map<std::string, std::string> Contents(::leveldb::DB* db) {
  std::map<std::string, std::string> contents;
  std::unique_ptr<::leveldb::Iterator> it(db->NewIterator(::leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    contents[it->key().ToString()] = it->value().ToString();
  }
  EXPECT_TRUE(it->status().ok());
  return contents;
}

class SameAsStockTest : public ::testing::TestWithParam<std::tuple<Budget, bool>> {};

TEST_P(SameAsStockTest, StoresAndReturnsWhatStockLevelDbDoes) {
  const auto [budget, adaptive] = GetParam();
  TempDir dir;
  constexpr uint64_t kKeys = 6000;
  // Stock LevelDB, default cache and Env.
  ::leveldb::Options stock_options;
  stock_options.create_if_missing = true;
  stock_options.write_buffer_size = 256 << 10;
  stock_options.max_file_size = 256 << 10;
  ::leveldb::DB* raw = nullptr;
  ASSERT_TRUE(::leveldb::DB::Open(stock_options, dir.path("stock"), &raw).ok());
  std::unique_ptr<::leveldb::DB> stock(raw);
  const auto expected = WriteHistory(stock.get(), kKeys);

  std::unique_ptr<Db> db;
  const ::leveldb::Status status = Open(SmallOptions(budget, adaptive), dir.path("sym"), &db);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(WriteHistory(db->db(), kKeys), expected);

  // Point reads, twice (the second pass hits caches), and a full scan.
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t i = 0; i < kKeys + 10; i += 3) {
      std::string mine, theirs;
      const ::leveldb::Status a = db->db()->Get(::leveldb::ReadOptions(), Key(i), &mine);
      const ::leveldb::Status b = stock->Get(::leveldb::ReadOptions(), Key(i), &theirs);
      ASSERT_EQ(a.ok(), b.ok()) << Key(i);
      ASSERT_EQ(a.IsNotFound(), b.IsNotFound()) << Key(i);
      ASSERT_EQ(mine, theirs) << Key(i);
    }
  }
  EXPECT_EQ(Contents(db->db()), Contents(stock.get()));
  EXPECT_EQ(Contents(db->db()), expected);

  const Stats stats = db->GetStats();
  EXPECT_GT(stats.lookups, 1000u);
  EXPECT_GT(stats.app_hits, 0u);
  EXPECT_EQ(stats.reads, stats.lookups - stats.app_hits);
  EXPECT_LE(stats.second_tier_hits, stats.reads);
  EXPECT_EQ(stats.memory_bytes, 64ull << 20);
  EXPECT_EQ(stats.ma_bytes, 1u << 20);
  if (budget == Budget::kEmulated) {
    EXPECT_GT(stats.second_tier_hits, 0u);  // the second pass
    EXPECT_EQ(stats.second_tier_bytes, (64ull << 20) - (1 << 20));
  }
  if (adaptive) {
    EXPECT_EQ(stats.controller.accesses, stats.lookups);
    EXPECT_TRUE(stats.controller.settings.change_floor_on_parts);  // LevelDB's choice
  }

  // Reopen: the contents survive, table file ids are the same numbers.
  db.reset();
  ASSERT_TRUE(Open(SmallOptions(budget, adaptive), dir.path("sym"), &db).ok());
  EXPECT_EQ(Contents(db->db()), expected);
}

INSTANTIATE_TEST_SUITE_P(BudgetsAndModes, SameAsStockTest,
                         ::testing::Combine(::testing::Values(Budget::kKernel, Budget::kEmulated),
                                            ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(BudgetName(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "Adaptive" : "Static");
                         });

TEST(LevelDbOpenTest, StaticCapacityChangesApplyToBothTiers) {
  TempDir dir;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(SmallOptions(Budget::kEmulated, false), dir.path("db"), &db).ok());
  db->SetAppCacheCapacity(48ull << 20);
  const Stats stats = db->GetStats();
  EXPECT_EQ(stats.ma_bytes, 48ull << 20);
  EXPECT_EQ(stats.second_tier_bytes, 16ull << 20);
}

// A shrink to at most 8 MiB from a cache at least 4x larger empties the
// cache (its blocks would pin the larger heap); a smaller shrink keeps
// what fits.
TEST(LevelDbOpenTest, ALargeShrinkEmptiesTheBlockCache) {
  TempDir dir;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(SmallOptions(Budget::kKernel, false), dir.path("db"), &db).ok());
  const auto read_all = [&] {
    EXPECT_FALSE(Contents(db->db()).empty());
  };
  WriteHistory(db->db(), 6000);
  db->SetAppCacheCapacity(32ull << 20);
  read_all();
  const uint64_t filled = db->GetStats().app_usage_bytes;
  ASSERT_GT(filled, 1u << 20) << "the table files should fill more than a MiB of cache";
  db->SetAppCacheCapacity(4ull << 20);
  EXPECT_EQ(db->GetStats().app_usage_bytes, 0u) << "32 MiB -> 4 MiB should empty the cache";
  read_all();
  const uint64_t refilled = db->GetStats().app_usage_bytes;
  EXPECT_EQ(refilled, filled);
  ASSERT_LE(refilled, 3u << 20);
  db->SetAppCacheCapacity(3ull << 20);
  EXPECT_EQ(db->GetStats().app_usage_bytes, refilled)
      << "4 MiB -> 3 MiB is not a large shrink: the blocks that fit stay";
}

// Suspended, lookups are counted but the Controller sees none; resumed, it
// sees every one again. What the engine returns does not change. A static
// DB has nothing to suspend.
TEST(LevelDbOpenTest, SuspendedLookupsAreCountedButNotReported) {
  TempDir dir;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(SmallOptions(Budget::kEmulated, true), dir.path("db"), &db).ok());
  const std::map<std::string, std::string> expected = WriteHistory(db->db(), 6000);
  const auto read_all = [&] { EXPECT_EQ(Contents(db->db()), expected); };
  read_all();
  const Stats before = db->GetStats();
  ASSERT_GT(before.controller.accesses, 0u);
  db->Suspend(true);
  read_all();
  const Stats suspended = db->GetStats();
  EXPECT_TRUE(suspended.suspended);
  EXPECT_GT(suspended.lookups, before.lookups);
  EXPECT_EQ(suspended.controller.accesses, before.controller.accesses);
  db->Suspend(false);
  read_all();
  const Stats resumed = db->GetStats();
  EXPECT_FALSE(resumed.suspended);
  EXPECT_EQ(resumed.controller.accesses - suspended.controller.accesses,
            resumed.lookups - suspended.lookups);

  std::unique_ptr<Db> fixed;
  ASSERT_TRUE(Open(SmallOptions(Budget::kEmulated, false), dir.path("static"), &fixed).ok());
  fixed->Suspend(true);
  EXPECT_FALSE(fixed->GetStats().suspended);
}

// A new DB keeps R = 1/64; reopened with a few MiB of tables, 256 groups
// of 128 KiB need every block sampled; min_sampled_groups = 0 keeps R.
TEST(LevelDbOpenTest, RaisesTheSampleRateForSmallDbs) {
  TempDir dir;
  std::unique_ptr<Db> db;
  Options options = SmallOptions(Budget::kEmulated, true);
  ASSERT_TRUE(Open(options, dir.path("db"), &db).ok());
  EXPECT_EQ(db->GetStats().controller.sample_rate, 1.0 / 64);
  WriteHistory(db->db(), 6000);
  db.reset();
  ASSERT_TRUE(Open(options, dir.path("db"), &db).ok());
  EXPECT_EQ(db->GetStats().controller.sample_rate, 1.0);
  db.reset();
  options.min_sampled_groups = 0;
  ASSERT_TRUE(Open(options, dir.path("db"), &db).ok());
  EXPECT_EQ(db->GetStats().controller.sample_rate, 1.0 / 64);
}

TEST(LevelDbOpenTest, RefusesBadBudgetsAndPathsWithOneLineErrors) {
  TempDir dir;
  std::unique_ptr<Db> db;
  const auto error_of = [&](const Options& options, const std::string& path) {
    const ::leveldb::Status s = Open(options, path, &db);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(db, nullptr);
    EXPECT_EQ(s.ToString().find('\n'), std::string::npos);
    return s.ToString();
  };
  Options small = SmallOptions(Budget::kEmulated, true);
  small.memory_bytes = 16ull << 20;
  EXPECT_NE(error_of(small, dir.path("a")).find("below the minimum"), std::string::npos);

  Options no_memory = SmallOptions(Budget::kEmulated, true);
  no_memory.memory_bytes = 0;
  EXPECT_NE(error_of(no_memory, dir.path("a")).find("memory_bytes"), std::string::npos);

  Options too_big = SmallOptions(Budget::kKernel, false);
  too_big.static_ma_bytes = 128ull << 20;
  EXPECT_NE(error_of(too_big, dir.path("a")).find("exceeds the budget"), std::string::npos);

  Options bad_config = SmallOptions(Budget::kKernel, true);
  bad_config.controller.gain_threshold = 2;
  EXPECT_NE(error_of(bad_config, dir.path("a")).find("gain_threshold"), std::string::npos);

  Options missing = SmallOptions(Budget::kKernel, true);
  missing.engine.create_if_missing = false;
  EXPECT_NE(error_of(missing, dir.path("nothing-here")).find("does not exist"),
            std::string::npos);

  Options with_cache = SmallOptions(Budget::kKernel, true);
  std::unique_ptr<::leveldb::Cache> cache(::leveldb::NewLRUCache(1 << 20));
  with_cache.engine.block_cache = cache.get();
  EXPECT_NE(error_of(with_cache, dir.path("a")).find("block_cache"), std::string::npos);
}

// Four readers while the block cache is resized back and forth, in both
// budgets: every read returns the written value. The sanitizer builds run
// this too.
TEST(LevelDbConcurrencyTest, FourReadersWhileResizing) {
  for (const Budget budget : {Budget::kKernel, Budget::kEmulated}) {
    TempDir dir;
    std::unique_ptr<Db> db;
    ASSERT_TRUE(Open(SmallOptions(budget, false), dir.path("db"), &db).ok());
    constexpr uint64_t kKeys = 4000;
    for (uint64_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db->db()->Put(::leveldb::WriteOptions(), Key(i), Value(i, 0)).ok());
    }
    db->db()->CompactRange(nullptr, nullptr);
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t) {
      readers.emplace_back([&, t] {
        std::mt19937_64 rng(t);
        for (int n = 0; n < 3000; ++n) {
          const uint64_t i = rng() % kKeys;
          std::string value;
          if (!db->db()->Get(::leveldb::ReadOptions(), Key(i), &value).ok() ||
              value != Value(i, 0)) {
            wrong.fetch_add(1);
          }
        }
      });
    }
    std::thread resizer([&] {
      for (uint64_t n = 0; !stop.load(); ++n) {
        db->SetAppCacheCapacity((n % 5) * (8ull << 20));
        std::this_thread::yield();
      }
    });
    for (auto& r : readers) r.join();
    stop = true;
    resizer.join();
    EXPECT_EQ(wrong.load(), 0) << BudgetName(budget);
  }
}

}  // namespace
}  // namespace symbiosis::leveldb
