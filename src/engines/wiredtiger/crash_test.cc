// Crash safety: a writer process with Symbiosis attached is killed with
// SIGKILL at random points while it commits (logged, synced), reads,
// checkpoints and resizes its cache; after each kill the database is
// reopened (WiredTiger recovers from its log) and every acknowledged
// commit must be there with its value. 50 kills
// (testing/crash_harness.h runs the rounds).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/wiredtiger.h"
#include "testing/crash_harness.h"

namespace symbiosis::wiredtiger {
namespace {

constexpr const char* kTable = "table:crash";

std::string CrashKey(uint64_t i) { return "crash" + std::to_string(i); }
std::string CrashValue(uint64_t i) { return std::string(100 + i % 900, static_cast<char>('a' + i % 26)); }

// Logged and synced at commit: an acknowledged commit is durable.
Options CrashOptions() {
  Options options;
  options.engine_config =
      "create,log=(enabled=true,file_max=1MB,prealloc=false),"
      "transaction_sync=(enabled=true,method=fsync)";
  options.extensions = {kSnappyExtension};
  options.memory_bytes = 48ull << 20;
  options.adaptive = false;
  options.static_ma_bytes = 4ull << 20;
  return options;
}

// The writer: runs until killed.
TEST(WiredTigerCrashChild, Writer) {
  const char* home = std::getenv("SYMBIOSIS_CRASH_DB");
  if (home == nullptr) GTEST_SKIP() << "runs only as the crash test's child process";
  const uint64_t first = std::strtoull(std::getenv("SYMBIOSIS_CRASH_FIRST"), nullptr, 10);
  std::filesystem::create_directories(home);
  std::unique_ptr<Db> db;
  const Status status = Open(CrashOptions(), home, &db);
  if (!status.ok()) {
    std::fprintf(stderr, "crash writer: %s\n", status.message.c_str());
    std::_Exit(3);
  }
  WT_CONNECTION* c = db->connection();
  WT_SESSION* session = nullptr;
  if (c->open_session(c, nullptr, nullptr, &session) != 0 ||
      session->create(session, kTable, "key_format=S,value_format=S,block_compressor=snappy") != 0) {
    std::_Exit(5);
  }
  std::thread resizer([&] {  // a resize storm
    for (uint64_t n = 0;; ++n) {
      db->SetAppCacheCapacity((1 + n % 7) * (4ull << 20));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::thread reader([&] {
    WT_SESSION* s = nullptr;
    WT_CURSOR* cursor = nullptr;
    if (c->open_session(c, nullptr, nullptr, &s) != 0 ||
        s->open_cursor(s, kTable, nullptr, nullptr, &cursor) != 0) {
      std::_Exit(6);
    }
    std::mt19937_64 rng(first);
    for (;;) {
      const std::string key = CrashKey(rng() % (first + 1));
      AccessScope scope(*db, kTable, key);
      cursor->set_key(cursor, key.c_str());
      cursor->search(cursor);
      cursor->reset(cursor);
    }
  });
  std::thread checkpointer([&] {
    WT_SESSION* s = nullptr;
    if (c->open_session(c, nullptr, nullptr, &s) != 0) std::_Exit(7);
    for (;;) {
      if (s->checkpoint(s, nullptr) != 0) std::_Exit(8);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  WT_CURSOR* cursor = nullptr;
  if (session->open_cursor(session, kTable, nullptr, nullptr, &cursor) != 0) std::_Exit(9);
  for (uint64_t i = first;; ++i) {
    const std::string key = CrashKey(i), value = CrashValue(i);
    cursor->set_key(cursor, key.c_str());
    cursor->set_value(cursor, value.c_str());
    if (cursor->insert(cursor) != 0) std::_Exit(4);  // auto-commit, synced
    testing::AckWrite(i);
  }
}

TEST(WiredTigerCrashTest, AcknowledgedCommitsSurviveSigkill) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("symbiosis_wt_crash_" + std::to_string(getpid()));
  fs::remove_all(dir);
  testing::CrashRun run;
  run.child_test = "WiredTigerCrashChild.Writer";
  run.env = {{"SYMBIOSIS_CRASH_DB", dir.string()}};
  run.first_key_env = "SYMBIOSIS_CRASH_FIRST";
  run.kills = 50;
  run.wait_for_first_ack = true;
  const std::vector<uint64_t> acked = testing::RunCrashRounds(
      run, [&](const std::vector<uint64_t>& acked, int round) {
        std::unique_ptr<Db> db;
        const Status status = Open(CrashOptions(), dir.string(), &db);
        ASSERT_TRUE(status.ok()) << status.message;
        WT_CONNECTION* c = db->connection();
        WT_SESSION* session = nullptr;
        ASSERT_EQ(c->open_session(c, nullptr, nullptr, &session), 0);
        WT_CURSOR* cursor = nullptr;
        if (acked.empty()) return;
        ASSERT_EQ(session->open_cursor(session, kTable, nullptr, nullptr, &cursor), 0)
            << "the table is gone after kill " << round;
        for (const uint64_t i : acked) {
          const std::string key = CrashKey(i);
          cursor->set_key(cursor, key.c_str());
          ASSERT_EQ(cursor->search(cursor), 0)
              << "acknowledged key " << i << " lost after kill " << round;
          const char* value = nullptr;
          ASSERT_EQ(cursor->get_value(cursor, &value), 0);
          ASSERT_EQ(std::string(value), CrashValue(i));
        }
      });
  EXPECT_GT(acked.size(), static_cast<size_t>(run.kills)) << "the writer barely wrote";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace symbiosis::wiredtiger
