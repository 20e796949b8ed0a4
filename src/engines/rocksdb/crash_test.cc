// Crash safety in RocksDB: a writer process with Symbiosis attached is
// killed with SIGKILL at random points while it writes (sync), reads and
// resizes both caches in a storm; after each kill the DB is reopened and
// every acknowledged write must be there with its value. 50 kills per run,
// both budgets (the kernel one with M given, so no cgroup is needed;
// testing/crash_harness.h runs the rounds). And 50 more with a flash tier,
// killed while it writes regions and changes size, whose reader checks
// every value it gets: a wrong one ends the writer early, which fails.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/rocksdb.h"
#include "testing/crash_harness.h"

namespace symbiosis::rocksdb {
namespace {

std::string CrashKey(uint64_t i) { return "crash" + std::to_string(i); }
std::string CrashValue(uint64_t i) { return std::string(100 + i % 900, static_cast<char>('a' + i % 26)); }

Options CrashOptions(Budget budget, const std::string& flash = "") {
  Options options;
  options.engine.create_if_missing = true;
  options.engine.write_buffer_size = 64 << 10;  // frequent flushes and compactions
  options.engine.level0_file_num_compaction_trigger = 2;
  options.budget.budget = budget;
  options.budget.memory_bytes = 48ull << 20;
  options.budget.adaptive = false;
  options.budget.static_ma_bytes = 1 << 20;
  if (!flash.empty()) {
    options.budget.memory_bytes = 64ull << 20;
    options.budget.flash.path = flash;
    options.budget.flash.capacity_bytes = 8ull << 20;
    options.budget.flash.region_bytes = 128u << 10;
    options.budget.flash.write_queue_bytes = 1u << 20;
  }
  return options;
}

// The writer: runs until killed.
TEST(RocksDbCrashChild, Writer) {
  const char* db_path = std::getenv("SYMBIOSIS_ROCKSDB_CRASH_DB");
  if (db_path == nullptr) GTEST_SKIP() << "runs only as the crash test's child process";
  const Budget budget =
      std::getenv("SYMBIOSIS_ROCKSDB_CRASH_KERNEL") ? Budget::kKernel : Budget::kEngine;
  const uint64_t first = std::strtoull(std::getenv("SYMBIOSIS_ROCKSDB_CRASH_FIRST"), nullptr, 10);
  const char* flash = std::getenv("SYMBIOSIS_ROCKSDB_CRASH_FLASH");
  const Options options = CrashOptions(budget, flash != nullptr ? flash : "");
  std::shared_ptr<SharedBudget> shared;
  std::unique_ptr<Db> db;
  ::rocksdb::Status status = SharedBudget::Create(options.budget, &shared);
  if (status.ok()) status = shared->Open(options.engine, options.table, db_path, {}, &db);
  if (!status.ok()) {
    std::fprintf(stderr, "crash writer: %s\n", status.ToString().c_str());
    std::_Exit(3);
  }
  std::thread resizer([&] {  // a resize storm of both caches, and of the flash tier
    for (uint64_t n = 0;; ++n) {
      shared->SetAppCacheCapacity((n % 7) * (4ull << 20));
      if (flash != nullptr) shared->SetFlashCapacity((1 + n % 8) * (1ull << 20)).PermitUncheckedError();
    }
  });
  std::thread reader([&] {
    std::mt19937_64 rng(first);
    std::string value;
    for (;;) {
      const uint64_t i = rng() % (first + 1);
      const ::rocksdb::Status s = db->db()->Get(::rocksdb::ReadOptions(), CrashKey(i), &value);
      if (s.ok() && value != CrashValue(i)) {
        std::fprintf(stderr, "crash writer: key %llu read a wrong value\n",
                     static_cast<unsigned long long>(i));
        std::_Exit(6);
      }
    }
  });
  ::rocksdb::WriteOptions sync;
  sync.sync = true;
  for (uint64_t i = first;; ++i) {
    if (!db->db()->Put(sync, CrashKey(i), CrashValue(i)).ok()) std::_Exit(4);
    testing::AckWrite(i);
  }
}

TEST(RocksDbCrashTest, AcknowledgedSyncWritesSurviveSigkill) {
  namespace fs = std::filesystem;
  for (const Budget budget : {Budget::kEngine, Budget::kKernel}) {
    const fs::path dir = fs::temp_directory_path() /
                         ("symbiosis_rocksdb_crash_" + std::to_string(getpid()) + BudgetName(budget));
    fs::remove_all(dir);
    testing::CrashRun run;
    run.child_test = "RocksDbCrashChild.Writer";
    run.env = {{"SYMBIOSIS_ROCKSDB_CRASH_DB", dir.string()}};
    if (budget == Budget::kKernel) run.env.emplace_back("SYMBIOSIS_ROCKSDB_CRASH_KERNEL", "1");
    run.first_key_env = "SYMBIOSIS_ROCKSDB_CRASH_FIRST";
    run.kills = 25;  // per budget: 50 in all
    const std::vector<uint64_t> acked = testing::RunCrashRounds(
        run, [&](const std::vector<uint64_t>& acked, int round) {
          std::unique_ptr<Db> db;
          const ::rocksdb::Status status = Open(CrashOptions(budget), dir.string(), &db);
          ASSERT_TRUE(status.ok()) << status.ToString();
          for (const uint64_t i : acked) {
            std::string value;
            ASSERT_TRUE(db->db()->Get(::rocksdb::ReadOptions(), CrashKey(i), &value).ok())
                << BudgetName(budget) << ": acknowledged key " << i << " lost after kill " << round;
            ASSERT_EQ(value, CrashValue(i));
          }
        });
    EXPECT_GT(acked.size(), static_cast<size_t>(run.kills)) << "the writer barely wrote";
    fs::remove_all(dir);
  }
}

TEST(RocksDbCrashTest, AFlashTierKilledWhileWritingServesNoWrongValue) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("symbiosis_rocksdb_crash_flash_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db_path = (dir / "db").string(), flash = (dir / "flash").string();
  testing::CrashRun run;
  run.child_test = "RocksDbCrashChild.Writer";
  run.env = {{"SYMBIOSIS_ROCKSDB_CRASH_DB", db_path}, {"SYMBIOSIS_ROCKSDB_CRASH_FLASH", flash}};
  run.first_key_env = "SYMBIOSIS_ROCKSDB_CRASH_FIRST";
  run.kills = 50;
  const std::vector<uint64_t> acked = testing::RunCrashRounds(
      run, [&](const std::vector<uint64_t>& acked, int round) {
        std::unique_ptr<Db> db;
        const ::rocksdb::Status status = Open(CrashOptions(Budget::kEngine, flash), db_path, &db);
        ASSERT_TRUE(status.ok()) << status.ToString();
        // Twice: the second pass reads what the first left on flash.
        for (int pass = 0; pass < 2; ++pass) {
          for (const uint64_t i : acked) {
            std::string value;
            ASSERT_TRUE(db->db()->Get(::rocksdb::ReadOptions(), CrashKey(i), &value).ok())
                << "acknowledged key " << i << " lost after kill " << round;
            ASSERT_EQ(value, CrashValue(i)) << "after kill " << round << ", pass " << pass;
          }
        }
      });
  EXPECT_GT(acked.size(), static_cast<size_t>(run.kills)) << "the writer barely wrote";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symbiosis::rocksdb
