// Symbiosis inside Debian's RocksDB 7.8.3, engine budget (no root needed):
// what the engine returns is unchanged, every lookup is seen and placed,
// the secondary tier's hits are told apart, several DBs and column
// families share one budget, deleted tables leave nothing behind, and bad
// budgets are one-line errors.

#include "symbiosis/rocksdb.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <filesystem>
#include <atomic>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

namespace fs = std::filesystem;

std::string Key(int i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "key%08d", i);
  return buffer;
}

// 1,000 bytes that snappy halves.
std::string Value(int i, int version = 0) {
  std::mt19937_64 rng(i * 7919 + version);
  std::string v(1000, '\0');
  for (size_t j = 0; j < v.size(); ++j) v[j] = j < 500 ? char(rng()) : v[j - 500];
  return v;
}

class RocksDbTest : public ::testing::Test {
 protected:
  RocksDbTest() : temp_("symbiosis_rocksdb_test"), dir_(temp_.path("")) {}

  // A DB of `keys` entries in several table files, written without
  // Symbiosis and compacted.
  std::string Fill(const std::string& name, int keys) {
    const std::string path = dir_ + "/" + name;
    ::rocksdb::Options options;
    options.create_if_missing = true;
    options.compression = ::rocksdb::kSnappyCompression;
    options.write_buffer_size = 1 << 20;
    ::rocksdb::DB* raw = nullptr;
    EXPECT_TRUE(::rocksdb::DB::Open(options, path, &raw).ok());
    std::unique_ptr<::rocksdb::DB> db(raw);
    for (int i = 0; i < keys; ++i) EXPECT_TRUE(db->Put({}, Key(i), Value(i)).ok());
    EXPECT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
    return path;
  }

  static Options EngineOptions(uint64_t memory, bool adaptive) {
    Options o;
    o.budget.budget = Budget::kEngine;
    o.budget.memory_bytes = memory;
    o.budget.adaptive = adaptive;
    o.budget.static_ma_bytes = 8 << 20;
    return o;
  }

  testing::TempDir temp_;
  const std::string dir_;
};

TEST_F(RocksDbTest, ReadsReturnWhatWasWrittenAndEveryLookupIsSeen) {
  const std::string path = Fill("db", 20'000);  // 20 MB of values, ~10 MB of tables
  Options options = EngineOptions(32 << 20, /*adaptive=*/false);
  options.budget.static_ma_bytes = 2 << 20;  // most blocks go to the secondary
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(options, path, &db).ok());
  std::mt19937 rng(1);
  std::string value;
  for (int n = 0; n < 30'000; ++n) {
    const int i = static_cast<int>(rng() % 20'000);
    ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
    ASSERT_EQ(value, Value(i));
  }
  const Stats s = db->GetStats();
  EXPECT_EQ(s.memory_bytes, 32u << 20);
  EXPECT_EQ(s.ma_bytes, 2u << 20);
  EXPECT_EQ(s.second_tier_bytes, 30u << 20);
  EXPECT_GE(s.lookups, 30'000u);  // at least one data block per Get
  EXPECT_GT(s.app_hits, 0u);
  // Every lookup is a hit or a miss served below, but for a few that read
  // nothing (a table's meta blocks at its first use: 2 of 30,002 here).
  EXPECT_LE(s.app_hits + s.reads, s.lookups);
  EXPECT_GE(s.app_hits + s.reads, s.lookups - s.lookups / 1000);
  EXPECT_GT(s.second_tier_hits, 0u) << "the compressed cache holds what 2 MiB cannot";
  EXPECT_LT(s.second_tier_hits, s.reads) << "and some reads went to the file";
  EXPECT_GT(s.miss_ns, 0u);
}

TEST_F(RocksDbTest, TheControllerSeesPlacedAccessesAndSplitsTheBudget) {
  const std::string path = Fill("db", 20'000);
  Options options = EngineOptions(32 << 20, /*adaptive=*/true);
  options.budget.controller.window_accesses = 5'000;
  options.budget.controller.round_warmup_accesses = 10'000;
  options.budget.controller.max_round_warmup_accesses = 20'000;
  options.budget.controller.warmup_check_accesses = 5'000;
  options.budget.controller.candidate_warmup_accesses = 2'000;
  options.budget.controller.candidate_accesses = 5'000;
  options.budget.controller.parallel_measure_accesses = 20'000;
  options.budget.controller.min_samples = 100;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(options, path, &db).ok());
  std::mt19937 rng(2);
  std::string value;
  for (int n = 0; n < 200'000; ++n) {
    // 90% of reads to 10% of the keys: a cache of the hot tenth pays.
    const int i = rng() % 10 < 9 ? static_cast<int>(rng() % 2'000) : static_cast<int>(rng() % 20'000);
    ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
    ASSERT_EQ(value, Value(i));
  }
  const Stats s = db->GetStats();
  EXPECT_EQ(s.controller.sample_rate, 1.0) << "a 10 MB DB is sampled whole";
  EXPECT_DOUBLE_EQ(s.controller.settings.read_tie_margin, 0.03);  // the engine budget's
  EXPECT_FALSE(s.controller.settings.change_floor_on_parts);
  // The model's shards are the engine's caches': RocksDB's defaults for
  // the 8 MiB and 24 MiB they were created with.
  EXPECT_EQ(s.controller.block_cache_shard_bits, 4);
  EXPECT_EQ(s.controller.secondary_cache_shard_bits, 5);
  const std::string printed = db->db()
                                  ->GetOptions()
                                  .table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>()
                                  ->block_cache->GetPrintableOptions();
  const size_t secondary = printed.find("secondary_cache:");
  ASSERT_NE(secondary, std::string::npos) << printed;
  EXPECT_NE(printed.substr(0, secondary).find("num_shard_bits : 4\n"), std::string::npos)
      << printed;
  EXPECT_NE(printed.substr(secondary).find("num_shard_bits : 5\n"), std::string::npos) << printed;
  EXPECT_GT(s.controller.accesses, 150'000u);
  EXPECT_LT(s.unmapped_lookups, s.lookups / 100) << "hits are placed in their files";
  ASSERT_FALSE(s.controller.rounds.empty());
  EXPECT_EQ(s.controller.rounds.front().decision.empty(), false);
  // The two caches always add up to M.
  EXPECT_EQ(s.ma_bytes + s.second_tier_bytes, s.memory_bytes);
}

// RocksDB charges a block read from its table its memory usage but one its
// secondary promotes only its contents; the accesses report contents, and
// the Controller learns the difference for its ghosts. A primary of 2 MiB
// holds the last blocks of a sequential pass: read from the table in the
// first pass; in the third, promoted (each block's first lookup finds it
// in the secondary, the next, at the dummy it left, moves it up).
TEST_F(RocksDbTest, TheControllerLearnsWhatABlockReadCostsBeyondItsContents) {
  const std::string path = Fill("db", 20'000);
  Options options = EngineOptions(64 << 20, /*adaptive=*/true);
  options.budget.controller.initial_ma_bytes = 2 << 20;  // no round ends in 60K accesses
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(options, path, &db).ok());
  const std::shared_ptr<::rocksdb::Cache> cache =
      db->db()->GetOptions().table_factory->GetOptions<::rocksdb::BlockBasedTableOptions>()
          ->block_cache;
  // The mean charge of the data blocks (4 KiB; the index is larger).
  const auto mean_block_charge = [&cache] {
    double sum = 0;
    size_t n = 0;
    cache->ApplyToAllEntries(
        [&](const ::rocksdb::Slice&, void*, size_t charge, ::rocksdb::Cache::DeleterFn) {
          if (charge < 2048 || charge > 8192) return;
          sum += static_cast<double>(charge);
          ++n;
        },
        {});
    EXPECT_GT(n, 200u);
    return sum / static_cast<double>(std::max<size_t>(n, 1));
  };
  std::string value;
  double read_charge = 0;
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < 20'000; ++i) ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
    if (pass == 0) read_charge = mean_block_charge();
  }
  const double promoted_charge = mean_block_charge();
  const Stats s = db->GetStats();
  ASSERT_GT(s.second_tier_hits, 4'000u) << "the third pass came from the secondary";
  EXPECT_GT(read_charge, promoted_charge + 16) << "a read block is charged its allocation";
  EXPECT_NEAR(s.controller.read_charge_overhead_bytes, read_charge - promoted_charge, 8);
}

// Suspended, lookups are counted but the Controller sees none; resumed, it
// sees them again. The values read do not change either way.
TEST_F(RocksDbTest, SuspendedLookupsAreCountedButNotReported) {
  const std::string path = Fill("db", 5'000);
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(EngineOptions(32 << 20, /*adaptive=*/true), path, &db).ok());
  std::mt19937 rng(3);
  std::string value;
  const auto read = [&] {
    for (int n = 0; n < 5'000; ++n) {
      const int i = static_cast<int>(rng() % 5'000);
      ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
      ASSERT_EQ(value, Value(i));
    }
  };
  read();
  const Stats before = db->GetStats();
  ASSERT_GT(before.controller.accesses, 0u);
  db->Suspend(true);
  read();
  const Stats suspended = db->GetStats();
  EXPECT_TRUE(suspended.suspended);
  EXPECT_GE(suspended.lookups - before.lookups, 5'000u);
  EXPECT_EQ(suspended.controller.accesses, before.controller.accesses);
  db->Suspend(false);
  read();
  const Stats resumed = db->GetStats();
  EXPECT_FALSE(resumed.suspended);
  EXPECT_GE(resumed.controller.accesses - suspended.controller.accesses, 4'900u);
}

TEST_F(RocksDbTest, SeveralDbsAndColumnFamiliesShareOneBudget) {
  const std::string a = Fill("a", 5'000), b = dir_ + "/b";
  BudgetOptions bo = EngineOptions(32 << 20, false).budget;
  std::shared_ptr<SharedBudget> budget;
  ASSERT_TRUE(SharedBudget::Create(bo, &budget).ok());
  std::unique_ptr<Db> db_a, db_b;
  ASSERT_TRUE(budget->Open({}, {}, a, {}, &db_a).ok());
  ::rocksdb::Options create;
  create.create_if_missing = true;
  create.create_missing_column_families = true;
  const std::vector<::rocksdb::ColumnFamilyDescriptor> families = {
      {::rocksdb::kDefaultColumnFamilyName, {}}, {"second", {}}};
  ASSERT_TRUE(budget->Open(create, {}, b, families, &db_b).ok());
  ASSERT_EQ(db_b->handles().size(), 2u);
  for (int i = 0; i < 2'000; ++i) {
    ASSERT_TRUE(db_b->db()->Put({}, db_b->handles()[i % 2], Key(i), Value(i, 1)).ok());
  }
  ASSERT_TRUE(db_b->db()->Flush({}, db_b->handles()).ok());
  std::string value;
  for (int i = 0; i < 2'000; ++i) {
    ASSERT_TRUE(db_a->db()->Get({}, Key(i), &value).ok());
    ASSERT_EQ(value, Value(i));
    ASSERT_TRUE(db_b->db()->Get({}, db_b->handles()[i % 2], Key(i), &value).ok());
    ASSERT_EQ(value, Value(i, 1));
    EXPECT_TRUE(db_b->db()->Get({}, db_b->handles()[(i + 1) % 2], Key(i), &value).IsNotFound());
  }
  const Stats s = budget->GetStats();
  EXPECT_EQ(s.memory_bytes, 32u << 20);
  EXPECT_GE(s.lookups, 4'000u) << "both DBs count in the shared budget";
  EXPECT_EQ(db_a->GetStats().lookups, s.lookups);
}

TEST_F(RocksDbTest, DeletedTablesLeaveNothingInTheSecondaryCache) {
  const std::string path = dir_ + "/db";
  Options options = EngineOptions(32 << 20, /*adaptive=*/true);
  options.engine.create_if_missing = true;
  options.engine.write_buffer_size = 1 << 20;
  options.engine.disable_auto_compactions = true;
  options.budget.controller.initial_ma_bytes = 1 << 20;  // a small primary evicts to the secondary
  std::shared_ptr<SharedBudget> budget;
  ASSERT_TRUE(SharedBudget::Create(options.budget, &budget).ok());
  std::unique_ptr<Db> db;
  ASSERT_TRUE(budget->Open(options.engine, options.table, path, {}, &db).ok());
  for (int round = 0; round < 4; ++round) {  // four overlapping table files
    for (int i = 0; i < 3'000; ++i) ASSERT_TRUE(db->db()->Put({}, Key(i), Value(i, round)).ok());
    ASSERT_TRUE(db->db()->Flush({}).ok());
  }
  std::string value;
  for (int pass = 0; pass < 3; ++pass) {
    for (int i = 0; i < 3'000; ++i) ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
  }
  EXPECT_GT(db->GetStats().second_tier_hits, 0u);
  ASSERT_TRUE(db->db()->CompactRange({}, nullptr, nullptr).ok());  // deletes the four
  EXPECT_GT(budget->DeletedTableKeys(), 0u) << "the deleted tables had secondary entries";
  EXPECT_EQ(budget->DeletedTableEntries(), 0u) << "and none is left";
  for (int i = 0; i < 3'000; ++i) {
    ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
    ASSERT_EQ(value, Value(i, 3));
  }
}

// The compressed cache's buffers come from the slab allocator, and when
// the block cache grows over the budget, the memory they held goes back.
TEST_F(RocksDbTest, TheSecondaryCacheLivesInSlabsThatShrinkWithIt) {
  const std::string path = Fill("db", 20'000);  // ~10 MB of tables
  std::shared_ptr<SharedBudget> budget;
  Options options = EngineOptions(32 << 20, /*adaptive=*/false);
  options.budget.static_ma_bytes = 2 << 20;
  ASSERT_TRUE(SharedBudget::Create(options.budget, &budget).ok());
  std::unique_ptr<Db> db;
  ASSERT_TRUE(budget->Open(options.engine, options.table, path, {}, &db).ok());
  std::string value;
  for (int pass = 0; pass < 3; ++pass) {  // a block enters at its second eviction
    for (int i = 0; i < 20'000; ++i) {
      ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
      ASSERT_EQ(value, Value(i));
    }
  }
  Stats s = budget->GetStats();
  EXPECT_GT(s.second_tier_hits, 0u);
  EXPECT_GT(s.secondary_allocated_bytes, 4u << 20) << "most of the ~10 MB of tables";
  EXPECT_GE(s.secondary_resident_bytes, s.secondary_allocated_bytes);
  EXPECT_LE(s.secondary_resident_bytes, s.secondary_allocated_bytes * 5 / 4 + (4 << 20));
  EXPECT_EQ(s.secondary_malloc_fallbacks, 0u);

  budget->SetAppCacheCapacity(32 << 20);  // the secondary cache to 0
  s = budget->GetStats();
  EXPECT_EQ(s.second_tier_bytes, 0u);
  EXPECT_LE(s.secondary_allocated_bytes, 64u << 10);
  EXPECT_LE(s.secondary_resident_bytes, 2u << 20) << "the emptied slabs went back";
  for (int i = 0; i < 20'000; i += 7) {
    ASSERT_TRUE(db->db()->Get({}, Key(i), &value).ok());
    ASSERT_EQ(value, Value(i));
  }
}

TEST_F(RocksDbTest, BadBudgetsAreOneLineErrors) {
  const std::string path = Fill("db", 100);
  std::unique_ptr<Db> db;
  struct Case {
    Options options;
    std::string needle;
  };
  std::vector<Case> cases;
  cases.push_back({EngineOptions(0, true), "needs memory_bytes"});
  cases.push_back({EngineOptions(16 << 20, true), "below the minimum"});
  Options too_big = EngineOptions(32 << 20, false);
  too_big.budget.static_ma_bytes = 64 << 20;
  cases.push_back({too_big, "above the budget"});
  Options bad_config = EngineOptions(64 << 20, true);
  bad_config.budget.controller.gain_threshold = 2;
  cases.push_back({bad_config, "gain_threshold"});
  Options windows_codec = EngineOptions(64 << 20, true);
  windows_codec.budget.secondary_compression = ::rocksdb::kXpressCompression;
  cases.push_back({windows_codec, "no kXpressCompression codec"});
  for (const Case& c : cases) {
    const ::rocksdb::Status s = Open(c.options, path, &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.needle), std::string::npos) << s.ToString();
    EXPECT_EQ(s.ToString().find('\n'), std::string::npos);
  }
  const ::rocksdb::Status s = Open(EngineOptions(64 << 20, true), dir_ + "/nothing", &db);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("does not exist"), std::string::npos) << s.ToString();
}

// A value that names its key and version, so a reader can check any
// version it sees.
std::string Versioned(int i, uint64_t version) {
  std::string v = Key(i) + "#" + std::to_string(version) + "#";
  v.resize(600, static_cast<char>('a' + (i + version) % 26));
  return v;
}

bool IsValueOf(int i, const std::string& v) {
  const std::string head = Key(i) + "#";
  return v.size() == 600 && v.compare(0, head.size(), head) == 0;
}

// 4 readers check every value they read while a writer overwrites keys
// fast enough to flush and compact all the time, and the caches are
// resized back and forth (both caches in the engine budget).
TEST_F(RocksDbTest, FourReadersACompactingWriterAndAResizeStorm) {
  for (const Budget which : {Budget::kEngine, Budget::kKernel}) {
    const std::string path = dir_ + "/" + BudgetName(which);
    Options options = EngineOptions(40 << 20, /*adaptive=*/false);
    options.budget.budget = which;
    options.budget.static_ma_bytes = 1 << 20;
    options.engine.create_if_missing = true;
    options.engine.write_buffer_size = 256 << 10;
    options.engine.level0_file_num_compaction_trigger = 2;
    std::shared_ptr<SharedBudget> budget;
    ASSERT_TRUE(SharedBudget::Create(options.budget, &budget).ok());
    std::unique_ptr<Db> db;
    ASSERT_TRUE(budget->Open(options.engine, options.table, path, {}, &db).ok());
    constexpr int kKeys = 4000;
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(db->db()->Put({}, Key(i), Versioned(i, 0)).ok());
    ASSERT_TRUE(db->db()->Flush({}).ok());
    std::atomic<bool> stop{false};
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t) {
      readers.emplace_back([&, t] {
        std::mt19937_64 rng(t);
        std::string value;
        for (int n = 0; n < 4000; ++n) {
          const int i = static_cast<int>(rng() % kKeys);
          if (!db->db()->Get({}, Key(i), &value).ok() || !IsValueOf(i, value)) wrong.fetch_add(1);
        }
      });
    }
    std::thread writer([&] {
      for (uint64_t version = 1; !stop.load(); ++version) {
        for (int i = 0; i < kKeys && !stop.load(); i += 7) {
          if (!db->db()->Put({}, Key(i), Versioned(i, version)).ok()) wrong.fetch_add(1);
        }
      }
    });
    std::thread resizer([&] {
      for (uint64_t n = 0; !stop.load(); ++n) {
        budget->SetAppCacheCapacity((n % 5) * (8ull << 20));
        std::this_thread::yield();
      }
    });
    for (auto& r : readers) r.join();
    stop = true;
    writer.join();
    resizer.join();
    EXPECT_EQ(wrong.load(), 0) << BudgetName(which);
    const Stats s = budget->GetStats();
    EXPECT_GT(s.lookups, 0u) << BudgetName(which);
  }
}

}  // namespace
}  // namespace symbiosis::rocksdb
