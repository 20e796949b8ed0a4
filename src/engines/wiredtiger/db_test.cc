// Symbiosis inside Debian's WiredTiger 3.2.1, through its file system
// interface: what the engine returns is unchanged, every page read it
// makes is seen and typed, marked lookups become page accesses whose
// misses equal WiredTiger's own count, the cache follows the Controller
// within its floor, and bad input is a one-line error.

#include "symbiosis/wiredtiger.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "budget/device_read_cost.h"
#include "testing/test_support.h"

namespace symbiosis::wiredtiger {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr const char* kTable = "table:t";

std::string Key(int i) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "user%012d", i);
  return buffer;
}

// 1,000 bytes that snappy halves.
std::string Value(int i) {
  std::mt19937_64 rng(i * 7919);
  std::string v(1000, '\0');
  for (size_t j = 0; j < v.size(); ++j) v[j] = j < 500 ? char('a' + rng() % 26) : v[j - 500];
  return v;
}

// A session with one cursor on the table.
struct Reader {
  explicit Reader(WT_CONNECTION* connection) {
    EXPECT_EQ(connection->open_session(connection, nullptr, nullptr, &session), 0);
    EXPECT_EQ(session->open_cursor(session, kTable, nullptr, nullptr, &cursor), 0);
  }
  ~Reader() { session->close(session, nullptr); }

  // A marked search; the value, or "" when absent.
  std::string Get(const Db& db, const std::string& key) {
    AccessScope scope(db, kTable, key);
    cursor->set_key(cursor, key.c_str());
    std::string value;
    if (cursor->search(cursor) == 0) {
      const char* v = nullptr;
      EXPECT_EQ(cursor->get_value(cursor, &v), 0);
      value = v;
    }
    cursor->reset(cursor);
    return value;
  }

  WT_SESSION* session = nullptr;
  WT_CURSOR* cursor = nullptr;
};

// `readers` threads, each making `ops` marked reads of random keys below
// `keys` and checking every value.
void ReadInThreads(const Db& db, int keys, int readers, int ops) {
  std::vector<std::thread> threads;
  for (int t = 0; t < readers; ++t) {
    threads.emplace_back([&, t] {
      Reader reader(db.connection());
      std::mt19937_64 rng(t);
      for (int n = 0; n < ops; ++n) {
        const int i = static_cast<int>(rng() % keys);
        if (reader.Get(db, Key(i)) != Value(i)) ADD_FAILURE() << i;
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

class WiredTigerTest : public ::testing::Test {
 protected:
  WiredTigerTest() : temp_("symbiosis_wiredtiger_test"), home_(temp_.path("wt")) {}

  // Symbiosis sizes the cache within `memory`.
  static Options AdaptiveOptions(uint64_t memory) {
    Options o;
    o.extensions = {kSnappyExtension};
    o.memory_bytes = memory;
    return o;
  }

  static Options StaticOptions(uint64_t memory, uint64_t cache) {
    Options o = AdaptiveOptions(memory);
    o.adaptive = false;
    o.static_ma_bytes = cache;
    return o;
  }

  // A table of `keys` snappy-compressed entries, written through Symbiosis
  // and checkpointed.
  void Fill(int keys) {
    std::filesystem::create_directories(home_);
    Options o = StaticOptions(64 * kMiB, 32 * kMiB);
    o.engine_config = "create";
    std::unique_ptr<Db> db;
    const Status s = Open(o, home_, &db);
    ASSERT_TRUE(s.ok()) << s.message;
    WT_CONNECTION* c = db->connection();
    WT_SESSION* session = nullptr;
    ASSERT_EQ(c->open_session(c, nullptr, nullptr, &session), 0);
    ASSERT_EQ(session->create(session, kTable,
                              "key_format=S,value_format=S,block_compressor=snappy"),
              0);
    WT_CURSOR* cursor = nullptr;
    ASSERT_EQ(session->open_cursor(session, kTable, nullptr, nullptr, &cursor), 0);
    for (int i = 0; i < keys; ++i) {
      const std::string k = Key(i), v = Value(i);
      cursor->set_key(cursor, k.c_str());
      cursor->set_value(cursor, v.c_str());
      ASSERT_EQ(cursor->insert(cursor), 0);
    }
    ASSERT_EQ(session->checkpoint(session, nullptr), 0);
  }

  testing::TempDir temp_;
  const std::string home_;
};

TEST_F(WiredTigerTest, MarkedLookupsAreSeenAndTheirMissesAreWiredTigersOwn) {
  constexpr int kKeys = 40'000;  // 40 MB of values, about 20 MB on disk
  Fill(kKeys);
  std::unique_ptr<Db> db;
  const Status s = Open(StaticOptions(64 * kMiB, 8 * kMiB), home_, &db);
  ASSERT_TRUE(s.ok()) << s.message;
  Reader reader(db->connection());
  std::mt19937_64 rng(1);
  const Stats before = db->GetStats();
  constexpr int kOps = 20'000;
  for (int n = 0; n < kOps; ++n) {
    const int i = static_cast<int>(rng() % kKeys);
    ASSERT_EQ(reader.Get(*db, Key(i)), Value(i)) << i;
  }
  const Stats after = db->GetStats();
  EXPECT_EQ(after.lookups - before.lookups, uint64_t(kOps));
  const uint64_t hits = after.app_hits - before.app_hits;
  const uint64_t reads = after.reads - before.reads;
  EXPECT_EQ(hits + reads, uint64_t(kOps));
  EXPECT_GT(hits, 0u);   // an 8 MiB cache holds some of 40 MB
  EXPECT_GT(reads, uint64_t(kOps / 4));
  // Every page WiredTiger read into its cache came through the file system
  // and was classified: leaf pages in marked operations, internal pages,
  // and reads outside operations (metadata, the checkpoint's lists).
  const uint64_t engine_reads = after.engine_pages_read - before.engine_pages_read;
  const uint64_t seen = reads + (after.internal_reads - before.internal_reads) +
                        (after.other_reads - before.other_reads);
  EXPECT_EQ(seen, engine_reads);
  EXPECT_GT(after.indexed_pages, 100u);
  // The index, checked on each miss before learning from it: nothing
  // moves in a read-only run, so a key inside a learned interval is on
  // that interval's page; a guess (between intervals) may miss.
  EXPECT_GT(after.index_answers, after.reads / 2);
  EXPECT_LE(after.index_answers, after.reads);
  EXPECT_EQ(after.index_wrong, after.index_guesses_wrong);
  EXPECT_GT(after.index_answers, after.index_guesses);
  EXPECT_GE(after.engine_pages_requested - before.engine_pages_requested, uint64_t(kOps));
  // Absent keys read nothing wrong either.
  EXPECT_EQ(reader.Get(*db, "zzz-absent"), "");
}

// The database stays WiredTiger's own: it opens without Symbiosis (no
// base configuration names our extension) and holds what was written.
TEST_F(WiredTigerTest, PlainWiredTigerOpensWhatSymbiosisWrote) {
  Fill(1'000);
  EXPECT_FALSE(std::filesystem::exists(home_ + "/WiredTiger.basecfg"));
  WT_CONNECTION* c = nullptr;
  const std::string config = std::string("extensions=[") + kSnappyExtension + "]";
  ASSERT_EQ(wiredtiger_open(home_.c_str(), nullptr, config.c_str(), &c), 0);
  WT_SESSION* session = nullptr;
  ASSERT_EQ(c->open_session(c, nullptr, nullptr, &session), 0);
  WT_CURSOR* cursor = nullptr;
  ASSERT_EQ(session->open_cursor(session, kTable, nullptr, nullptr, &cursor), 0);
  int n = 0;
  while (cursor->next(cursor) == 0) {
    const char* k = nullptr;
    const char* v = nullptr;
    ASSERT_EQ(cursor->get_key(cursor, &k), 0);
    ASSERT_EQ(cursor->get_value(cursor, &v), 0);
    ASSERT_EQ(std::string(k), Key(n));
    ASSERT_EQ(std::string(v), Value(n));
    ++n;
  }
  EXPECT_EQ(n, 1'000);
  EXPECT_EQ(c->close(c, nullptr), 0);
}

// The file system does what WiredTiger's own does with each call; here,
// a new log file is extended to its full size before its first record,
// which recovery after a kill relies on (file_system.cc, Extend). Before,
// a log file held only what had been written to it.
TEST_F(WiredTigerTest, LogFilesAreSizedAsByWiredTigersOwnFileSystem) {
  const std::string config = "create,log=(enabled=true,file_max=1MB,prealloc=false)";
  const auto log_bytes = [](const std::string& home) {
    uint64_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(home)) {
      if (entry.path().filename().string().rfind("WiredTigerLog.", 0) == 0) {
        bytes += entry.file_size();
      }
    }
    return bytes;
  };
  const std::string plain = temp_.path("plain");
  std::filesystem::create_directories(plain);
  WT_CONNECTION* c = nullptr;
  ASSERT_EQ(wiredtiger_open(plain.c_str(), nullptr, config.c_str(), &c), 0);
  const uint64_t plain_bytes = log_bytes(plain);
  ASSERT_EQ(c->close(c, nullptr), 0);

  std::filesystem::create_directories(home_);
  Options o = StaticOptions(64 * kMiB, 32 * kMiB);
  o.engine_config = config;
  std::unique_ptr<Db> db;
  const Status s = Open(o, home_, &db);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(plain_bytes, 1 * kMiB);
  EXPECT_EQ(log_bytes(home_), plain_bytes);
}

TEST_F(WiredTigerTest, StaticCacheSizeIsApplied) {
  Fill(2'000);
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(StaticOptions(64 * kMiB, 0), home_, &db).ok());
  EXPECT_EQ(db->GetStats().ma_bytes, 16 * kMiB);  // M / 4 by default
  db->SetAppCacheCapacity(40 * kMiB);
  EXPECT_EQ(db->GetStats().ma_bytes, 40 * kMiB);
  db->SetAppCacheCapacity(0);  // WiredTiger's minimum
  EXPECT_EQ(db->GetStats().ma_bytes, kMinCacheBytes);
}

TEST_F(WiredTigerTest, TheEvictionWorkersInForceAreReported) {
  Fill(2'000);
  for (const int workers : {2, 4}) {
    Options o = StaticOptions(64 * kMiB, 16 * kMiB);
    o.engine_config = "eviction=(threads_min=" + std::to_string(workers) +
                      ",threads_max=" + std::to_string(workers) + ")";
    std::unique_ptr<Db> db;
    const Status s = Open(o, home_, &db);
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(db->GetStats().engine_eviction_workers, static_cast<uint64_t>(workers));
  }
}

TEST_F(WiredTigerTest, TheControllerSizesTheCacheAboveTheFloor) {
  constexpr int kKeys = 20'000;
  Fill(kKeys);
  Options o = AdaptiveOptions(64 * kMiB);
  o.controller.window_accesses = 2'000;
  o.controller.round_warmup_accesses = 4'000;
  o.controller.max_round_warmup_accesses = 8'000;
  o.controller.warmup_check_accesses = 2'000;
  o.controller.candidate_accesses = 2'000;
  o.controller.parallel_measure_accesses = 8'000;
  o.controller.candidate_warmup_accesses = 1'000;
  o.controller.min_samples = 100;
  o.controller.settle_accesses = 4'000;
  std::unique_ptr<Db> db;
  const Status s = Open(o, home_, &db);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(db->GetStats().ma_bytes, 16 * kMiB);  // starts at the floor
  ReadInThreads(*db, kKeys, 4, 20'000);
  const Stats stats = db->GetStats();
  ASSERT_TRUE(stats.adaptive);
  EXPECT_EQ(stats.lookups, 80'000u);
  // The Controller's clock advances per thread in chunks of 1,024.
  EXPECT_GT(stats.controller.accesses, 80'000u - 4 * 1024);
  EXPECT_LE(stats.controller.accesses, 80'000u);
  ASSERT_FALSE(stats.controller.rounds.empty());
  const RoundStats& first = stats.controller.rounds.front();
  ASSERT_EQ(first.candidates.size(), 9u);
  for (const CandidateStats& c : first.candidates) EXPECT_GE(c.ma_bytes, 16 * kMiB);
  EXPECT_GT(first.candidates.back().ma_bytes, 60 * kMiB);
  EXPECT_GE(stats.ma_bytes, 16 * kMiB);
  // Hits while simulating were placed on pages: most for certain.
  EXPECT_LT(stats.unidentified_hits, stats.app_hits / 10 + 10);
}

// WiredTiger's own decision settings (controller.h; docs/wiredtiger.md),
// unless the application chose its own.
TEST_F(WiredTigerTest, TheControllerRunsWithWiredTigersSettingsUnlessGivenOthers) {
  Fill(2'000);
  {
    std::unique_ptr<Db> db;
    ASSERT_TRUE(Open(AdaptiveOptions(64 * kMiB), home_, &db).ok());
    const DecisionSettings s = db->GetStats().controller.settings;
    EXPECT_DOUBLE_EQ(s.min_app_fraction, 0.25);
    EXPECT_DOUBLE_EQ(s.read_tie_margin, 0.08);
    EXPECT_TRUE(s.change_floor_on_parts);
    EXPECT_DOUBLE_EQ(s.app_miss_change_floor, 0.10);
    EXPECT_DOUBLE_EQ(s.device_read_change_floor, 0.02);
  }
  Options o = AdaptiveOptions(64 * kMiB);
  o.controller.read_tie_margin = 0;
  o.controller.change_floor_on_parts = false;
  o.controller.app_miss_change_floor = 0.05;
  o.controller.device_read_change_floor = 0.03;
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(o, home_, &db).ok());
  const DecisionSettings s = db->GetStats().controller.settings;
  EXPECT_DOUBLE_EQ(s.read_tie_margin, 0);
  EXPECT_FALSE(s.change_floor_on_parts);
  EXPECT_DOUBLE_EQ(s.app_miss_change_floor, 0.05);
  EXPECT_DOUBLE_EQ(s.device_read_change_floor, 0.03);
}

// Suspended, marked lookups are counted but the Controller sees none and
// the cache stays its size; resumed, it sees them again. What WiredTiger
// returns does not change. A static DB has nothing to suspend.
TEST_F(WiredTigerTest, SuspendedLookupsAreCountedButNotReported) {
  constexpr int kKeys = 4'000;
  Fill(kKeys);
  Options o = AdaptiveOptions(64 * kMiB);
  std::unique_ptr<Db> db;
  Status s = Open(o, home_, &db);
  ASSERT_TRUE(s.ok()) << s.message;
  const auto read_all = [&](Reader& reader) {
    for (int i = 0; i < kKeys; ++i) ASSERT_EQ(reader.Get(*db, Key(i)), Value(i)) << i;
  };
  {
    Reader reader(db->connection());
    read_all(reader);
  }
  const Stats before = db->GetStats();
  ASSERT_GT(before.controller.accesses, 0u);
  db->Suspend(true);
  {
    Reader reader(db->connection());
    read_all(reader);
  }
  const Stats suspended = db->GetStats();
  EXPECT_TRUE(suspended.suspended);
  EXPECT_EQ(suspended.lookups - before.lookups, uint64_t(kKeys));
  EXPECT_EQ(suspended.controller.accesses, before.controller.accesses);
  EXPECT_EQ(suspended.ma_bytes, before.ma_bytes);
  db->Suspend(false);
  {
    Reader reader(db->connection());
    read_all(reader);
  }
  const Stats resumed = db->GetStats();
  EXPECT_FALSE(resumed.suspended);
  // The Controller's clock advances per thread in chunks of 1,024.
  EXPECT_GT(resumed.controller.accesses, suspended.controller.accesses + kKeys - 2 * 1024);
  db.reset();

  ASSERT_TRUE(Open(StaticOptions(64 * kMiB, 16 * kMiB), home_, &db).ok());
  db->Suspend(true);
  EXPECT_FALSE(db->GetStats().suspended);
}

// Open times a few direct reads of the table for the Controller's
// first device-read costs, unless told not to.
TEST_F(WiredTigerTest, OpenMeasuresWhatADeviceReadCosts) {
  Fill(20'000);
  if (!MeasureDeviceRead(home_ + "/" + std::string(kTable).substr(6) + ".wt", 8192, 1)) {
    GTEST_SKIP() << "no direct I/O under " << home_ << " (tmpfs?); set TMPDIR to a disk";
  }
  for (const bool measure : {true, false}) {
    Options o = AdaptiveOptions(64 * kMiB);
    o.measure_device_read_cost = measure;
    std::unique_ptr<Db> db;
    const Status s = Open(o, home_, &db);
    ASSERT_TRUE(s.ok()) << s.message;
    const MissCosts costs = db->GetStats().controller.costs;
    // No window has measured anything yet: the costs are the prior.
    EXPECT_EQ(db->GetStats().controller.prior_costs.second_tier_miss, costs.second_tier_miss);
    EXPECT_EQ(db->GetStats().controller.prior_costs.second_tier_miss_cpu, costs.second_tier_miss_cpu);
    if (measure) {
      EXPECT_GT(costs.second_tier_miss_cpu, 0);
      EXPECT_LE(costs.second_tier_miss_cpu, costs.second_tier_miss);
      EXPECT_NE(costs.second_tier_miss, MissCosts().second_tier_miss);
    } else {
      EXPECT_EQ(costs.second_tier_miss, MissCosts().second_tier_miss);
      EXPECT_EQ(costs.second_tier_miss_cpu, 0);
    }
  }
}

// Four readers while another thread resizes the cache without pause: every
// read returns what was written (and, under ThreadSanitizer, no race).
TEST_F(WiredTigerTest, FourReadersAndAResizeStorm) {
  constexpr int kKeys = 10'000;
  Fill(kKeys);
  std::unique_ptr<Db> db;
  ASSERT_TRUE(Open(StaticOptions(64 * kMiB, 0), home_, &db).ok());
  std::atomic<bool> done{false};
  std::thread resizer([&] {
    for (uint64_t n = 0; !done.load(); ++n) db->SetAppCacheCapacity((1 + n % 8) * 4 * kMiB);
  });
  ReadInThreads(*db, kKeys, 4, 10'000);
  done = true;
  resizer.join();
  EXPECT_EQ(db->GetStats().lookups, 40'000u);
}

TEST_F(WiredTigerTest, BadInputIsAOneLineError) {
  std::unique_ptr<Db> db;
  Status s = Open(StaticOptions(64 * kMiB, 0), temp_.path("missing"), &db);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("create the database"), std::string::npos) << s.message;
  EXPECT_EQ(s.message.find('\n'), std::string::npos);
  EXPECT_EQ(db, nullptr);

  s = Open(StaticOptions(16 * kMiB, 0), home_, &db);
  EXPECT_EQ(s.code, EINVAL);
  EXPECT_NE(s.message.find("below the minimum"), std::string::npos) << s.message;

  s = Open(StaticOptions(64 * kMiB, 128 * kMiB), home_, &db);
  EXPECT_NE(s.message.find("exceeds the budget"), std::string::npos) << s.message;

  Options o = StaticOptions(64 * kMiB, 0);
  o.engine_config = "create,cache_size=1GB";
  s = Open(o, home_, &db);
  EXPECT_NE(s.message.find("engine_config sets cache_size"), std::string::npos) << s.message;

  o = StaticOptions(64 * kMiB, 0);
  o.extensions = {"/nonexistent/libwiredtiger_lz4.so"};
  s = Open(o, home_, &db);
  EXPECT_EQ(s.code, ENOENT);
  EXPECT_NE(s.message.find("does not exist"), std::string::npos) << s.message;

  o = StaticOptions(64 * kMiB, 0);
  o.cache_fill = 0;
  s = Open(o, home_, &db);
  EXPECT_NE(s.message.find("cache_fill"), std::string::npos) << s.message;

  o = StaticOptions(64 * kMiB, 0);
  o.adaptive = true;
  o.min_app_fraction = 1.5;
  s = Open(o, home_, &db);
  EXPECT_NE(s.message.find("min_app_fraction"), std::string::npos) << s.message;
}

TEST_F(WiredTigerTest, ASecondOpenOfTheSameHomeIsRefused) {
  Fill(100);
  std::unique_ptr<Db> first, second;
  ASSERT_TRUE(Open(StaticOptions(64 * kMiB, 0), home_, &first).ok());
  const Status s = Open(StaticOptions(64 * kMiB, 0), home_, &second);
  EXPECT_FALSE(s.ok());  // WiredTiger.lock, through the file system's fh_lock
  EXPECT_EQ(second, nullptr);
  EXPECT_EQ(s.message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace symbiosis::wiredtiger
