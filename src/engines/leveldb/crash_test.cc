// Crash safety: a writer process with Symbiosis attached is killed with
// SIGKILL at random points while it writes (sync), reads and resizes its
// caches; after each kill the DB is reopened and every acknowledged write
// must be there with its value. 50 kills per run, both budgets
// (testing/crash_harness.h runs the rounds).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/leveldb.h"
#include "testing/crash_harness.h"

namespace symbiosis::leveldb {
namespace {

std::string CrashKey(uint64_t i) { return "crash" + std::to_string(i); }
std::string CrashValue(uint64_t i) { return std::string(100 + i % 900, static_cast<char>('a' + i % 26)); }

Options CrashOptions(Budget budget) {
  Options options;
  options.engine.create_if_missing = true;
  options.engine.write_buffer_size = 64 << 10;  // frequent flushes and compactions
  options.budget = budget;
  options.memory_bytes = 48ull << 20;
  options.adaptive = false;
  options.static_ma_bytes = 1 << 20;
  return options;
}

// The writer: runs until killed.
TEST(LevelDbCrashChild, Writer) {
  const char* db_path = std::getenv("SYMBIOSIS_CRASH_DB");
  if (db_path == nullptr) GTEST_SKIP() << "runs only as the crash test's child process";
  const Budget budget = std::getenv("SYMBIOSIS_CRASH_EMULATED") ? Budget::kEmulated : Budget::kKernel;
  const uint64_t first = std::strtoull(std::getenv("SYMBIOSIS_CRASH_FIRST"), nullptr, 10);
  std::unique_ptr<Db> db;
  const ::leveldb::Status status = Open(CrashOptions(budget), db_path, &db);
  if (!status.ok()) {
    std::fprintf(stderr, "crash writer: %s\n", status.ToString().c_str());
    std::_Exit(3);
  }
  std::thread resizer([&] {  // a resize storm
    for (uint64_t n = 0;; ++n) db->SetAppCacheCapacity((n % 7) * (4ull << 20));
  });
  std::thread reader([&] {
    std::mt19937_64 rng(first);
    std::string value;
    for (;;) db->db()->Get(::leveldb::ReadOptions(), CrashKey(rng() % (first + 1)), &value);
  });
  ::leveldb::WriteOptions sync;
  sync.sync = true;
  for (uint64_t i = first;; ++i) {
    if (!db->db()->Put(sync, CrashKey(i), CrashValue(i)).ok()) std::_Exit(4);
    testing::AckWrite(i);
  }
}

TEST(LevelDbCrashTest, AcknowledgedSyncWritesSurviveSigkill) {
  namespace fs = std::filesystem;
  for (const Budget budget : {Budget::kKernel, Budget::kEmulated}) {
    const fs::path dir = fs::temp_directory_path() /
                         ("symbiosis_crash_" + std::to_string(getpid()) + BudgetName(budget));
    fs::remove_all(dir);
    testing::CrashRun run;
    run.child_test = "LevelDbCrashChild.Writer";
    run.env = {{"SYMBIOSIS_CRASH_DB", dir.string()}};
    if (budget == Budget::kEmulated) run.env.emplace_back("SYMBIOSIS_CRASH_EMULATED", "1");
    run.first_key_env = "SYMBIOSIS_CRASH_FIRST";
    run.kills = 25;  // per budget: 50 in all
    const std::vector<uint64_t> acked = testing::RunCrashRounds(
        run, [&](const std::vector<uint64_t>& acked, int round) {
          std::unique_ptr<Db> db;
          const ::leveldb::Status status = Open(CrashOptions(budget), dir.string(), &db);
          ASSERT_TRUE(status.ok()) << status.ToString();
          for (const uint64_t i : acked) {
            std::string value;
            ASSERT_TRUE(db->db()->Get(::leveldb::ReadOptions(), CrashKey(i), &value).ok())
                << BudgetName(budget) << ": acknowledged key " << i << " lost after kill " << round;
            ASSERT_EQ(value, CrashValue(i));
          }
        });
    EXPECT_GT(acked.size(), static_cast<size_t>(run.kills)) << "the writer barely wrote";
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace symbiosis::leveldb
