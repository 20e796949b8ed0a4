// wiredtiger_bench: the WiredTiger benchmark driver behind `symbiosis bench
// wiredtiger`. The command line, the load and run loops and the output are
// the shared driver's (tools/driver/driver.h); this file is WiredTiger's
// part: one row-store table (string keys, byte values, snappy-compressed,
// 32 KiB leaf pages), four eviction workers as MongoDB runs WiredTiger,
// its defaults otherwise, opened with Symbiosis (symbiosis/wiredtiger.h)
// under the kernel budget: the cache below, the page cache above, inside a
// memory cgroup of M + --reserve. static-default is the paper's WiredTiger
// default, M_a = M / 4 (256 MB of 1 GB); Symbiosis searches M_a in
// [M / 4, M].

#include <wiredtiger.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "symbiosis/wiredtiger.h"

namespace {

namespace fs = std::filesystem;
namespace sb = symbiosis::bench;
namespace sw = symbiosis::wiredtiger;

constexpr const char* kTable = "table:bench";
constexpr const char* kTableConfig =
    "key_format=S,value_format=u,block_compressor=snappy,leaf_page_max=32KB";
// MongoDB's setting. With WiredTiger's default (1 to 8 workers, retuned
// every 25 s) a run sat at 1-2 workers or at 6-8 as the tuner drew, which
// moved H_a at one cache_size by up to 5 points (0.600 or 0.647 in uniform
// 0.8 at M) and decided a side-by-side pair more than its split did
// (docs/decisions/engine-constants.md).
constexpr const char* kEvictionConfig = "eviction=(threads_min=4,threads_max=4)";

std::string WtError(const std::string& what, int error) {
  return what + ": " + wiredtiger_strerror(error);
}

// One session and cursor per reader thread (WiredTiger sessions are
// single-threaded). Closed with the connection.
struct Reader {
  WT_SESSION* session = nullptr;
  WT_CURSOR* cursor = nullptr;
};

class WiredTigerBench final : public sb::BenchDb {
 public:
  explicit WiredTigerBench(std::unique_ptr<sw::Db> db)
      : db_(std::move(db)), generation_(++generations_) {}

  bool Get(const std::string& key, std::string* value, std::string* error) override {
    Reader* r = Mine(error);
    if (r == nullptr) return false;
    int code;
    {
      sw::AccessScope scope(*db_, kTable, key);
      r->cursor->set_key(r->cursor, key.c_str());
      code = r->cursor->search(r->cursor);
    }
    if (code == 0) {
      WT_ITEM item;
      code = r->cursor->get_value(r->cursor, &item);
      if (code == 0) value->assign(static_cast<const char*>(item.data), item.size);
    }
    r->cursor->reset(r->cursor);
    if (code != 0) *error = WtError("search", code);
    return code == 0;
  }

  // A write conflict with another thread's write of the same key (or an
  // eviction that needs the transaction's pages) rolls the write back;
  // like MongoDB, the write is retried, a bounded number of times.
  bool Put(const std::string& key, const std::string& value, std::string* error) override {
    Reader* r = Mine(error);
    if (r == nullptr) return false;
    WT_ITEM item{};
    item.data = value.data();
    item.size = value.size();
    int code = WT_ROLLBACK;
    for (int attempt = 0; attempt < kWriteAttempts && code == WT_ROLLBACK; ++attempt) {
      r->cursor->set_key(r->cursor, key.c_str());
      r->cursor->set_value(r->cursor, &item);
      code = r->cursor->insert(r->cursor);
      r->cursor->reset(r->cursor);
    }
    if (code != 0) *error = WtError("insert", code);
    return code == 0;
  }

  bool Scan(const std::string& key, uint32_t count, std::string* error) override {
    Reader* r = Mine(error);
    if (r == nullptr) return false;
    int exact = 0, code;
    {
      sw::AccessScope scope(*db_, kTable, key);
      r->cursor->set_key(r->cursor, key.c_str());
      code = r->cursor->search_near(r->cursor, &exact);
    }
    if (code == 0 && exact < 0) code = r->cursor->next(r->cursor);
    for (uint32_t n = 1; code == 0 && n < count; ++n) code = r->cursor->next(r->cursor);
    r->cursor->reset(r->cursor);
    if (code != 0 && code != WT_NOTFOUND) *error = WtError("scan", code);
    return code == 0 || code == WT_NOTFOUND;  // WT_NOTFOUND: the scan ran past the last key
  }

  sb::EngineStats Stats() const override {
    const sw::Stats s = db_->GetStats();
    sb::EngineStats out = sb::FromPluginStats(s);
    out.engine_counters = {{"internal_reads", s.internal_reads},
                           {"other_reads", s.other_reads},
                           {"guessed_hits", s.guessed_hits},
                           {"unidentified_hits", s.unidentified_hits},
                           {"indexed_pages", s.indexed_pages},
                           {"index_answers", s.index_answers},
                           {"index_wrong", s.index_wrong},
                           {"index_guesses", s.index_guesses},
                           {"index_guesses_wrong", s.index_guesses_wrong},
                           {"engine_pages_requested", s.engine_pages_requested},
                           {"engine_pages_read", s.engine_pages_read},
                           {"eviction_workers", s.engine_eviction_workers}};
    return out;
  }
  bool Suspend(bool suspended) override {
    db_->Suspend(suspended);
    return true;
  }

 private:
  Reader* Mine(std::string* error) {
    thread_local uint64_t cached_generation = 0;
    thread_local Reader* cached = nullptr;
    if (cached_generation == generation_) return cached;
    auto reader = std::make_unique<Reader>();
    WT_CONNECTION* c = db_->connection();
    if (const int code = c->open_session(c, nullptr, nullptr, &reader->session); code != 0) {
      *error = WtError("open_session", code);
      return nullptr;
    }
    if (const int code = reader->session->open_cursor(reader->session, kTable, nullptr, nullptr,
                                                      &reader->cursor);
        code != 0) {
      *error = WtError("open_cursor", code);
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    readers_.push_back(std::move(reader));
    cached = readers_.back().get();
    cached_generation = generation_;
    return cached;
  }

  static constexpr int kWriteAttempts = 100;
  std::unique_ptr<sw::Db> db_;  // closing it closes every reader's session
  static inline std::atomic<uint64_t> generations_{0};
  const uint64_t generation_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Reader>> readers_;
};

class WiredTigerLoader final : public sb::BenchLoader {
 public:
  WiredTigerLoader(std::unique_ptr<sw::Db> db, WT_SESSION* session, WT_CURSOR* cursor)
      : db_(std::move(db)), session_(session), cursor_(cursor) {}

  bool Write(const std::vector<std::pair<std::string, std::string>>& pairs,
             std::string* error) override {
    for (const auto& [key, value] : pairs) {
      WT_ITEM item{};
      item.data = value.data();
      item.size = value.size();
      cursor_->set_key(cursor_, key.c_str());
      cursor_->set_value(cursor_, &item);
      if (const int e = cursor_->insert(cursor_); e != 0) {
        *error = WtError("insert", e);
        return false;
      }
    }
    return true;
  }

  bool Finish(std::string* error) override {
    if (const int e = cursor_->close(cursor_); e != 0) {
      *error = WtError("closing the bulk cursor", e);
      return false;
    }
    if (const int e = session_->checkpoint(session_, nullptr); e != 0) {
      *error = WtError("checkpoint", e);
      return false;
    }
    db_.reset();  // closes the connection
    return true;
  }

 private:
  std::unique_ptr<sw::Db> db_;
  WT_SESSION* session_;
  WT_CURSOR* cursor_;
};

class WiredTigerEngine final : public sb::BenchEngine {
 public:
  std::string name() const override { return "wiredtiger"; }
  std::vector<std::string> budgets() const override { return {"kernel"}; }
  bool NeedsCgroup(const std::string& budget) const override { return true; }
  std::string FallbackBudget() const override { return ""; }
  uint64_t min_memory_bytes() const override { return sw::kMinMemoryBytes; }
  // The paper's WiredTiger default: 256 MB of a 1 GB budget.
  uint64_t default_ma_bytes(uint64_t memory) const override { return memory / 4; }

  uint64_t TableBytes(const std::string& path) const override {
    std::error_code error;
    const uintmax_t bytes = fs::file_size(fs::path(path) / "bench.wt", error);
    return error ? 0 : bytes;
  }

  std::unique_ptr<sb::BenchLoader> Create(const std::string& path, std::string* error) override {
    fs::create_directories(path);
    sw::Options options;
    options.engine_config = "create";
    options.extensions = {sw::kSnappyExtension};
    options.memory_bytes = 256ull << 20;  // the load's cache
    options.adaptive = false;
    options.static_ma_bytes = 128ull << 20;
    std::unique_ptr<sw::Db> db;
    const sw::Status status = sw::Open(options, path, &db);
    if (!status.ok()) {
      *error = status.message;
      return nullptr;
    }
    WT_CONNECTION* c = db->connection();
    WT_SESSION* session = nullptr;
    WT_CURSOR* cursor = nullptr;
    int e = c->open_session(c, nullptr, nullptr, &session);
    if (e == 0) e = session->create(session, kTable, kTableConfig);
    if (e == 0) e = session->open_cursor(session, kTable, nullptr, "bulk", &cursor);
    if (e != 0) {
      *error = WtError("creating " + std::string(kTable), e);
      return nullptr;
    }
    return std::make_unique<WiredTigerLoader>(std::move(db), session, cursor);
  }

  std::unique_ptr<sb::BenchDb> Open(const sb::OpenRequest& request, std::string* error) override {
    sw::Options options;
    options.engine_config = kEvictionConfig;
    options.extensions = {sw::kSnappyExtension};
    // Kernel budget: M from the cgroup we run in.
    options.memory_bytes = request.in_cgroup ? 0 : request.memory;
    options.controller.memory_reserve_bytes = request.reserve;
    if (request.app_cache_overhead) options.kernel_app_cache_overhead = *request.app_cache_overhead;
    options.adaptive = !request.static_ma_bytes.has_value();
    // static-0 runs WiredTiger's smallest cache.
    options.static_ma_bytes = std::max(request.static_ma_bytes.value_or(0), sw::kMinCacheBytes);
    std::unique_ptr<sw::Db> db;
    const sw::Status status = sw::Open(options, request.path, &db);
    if (!status.ok()) {
      *error = status.message;
      return nullptr;
    }
    return std::make_unique<WiredTigerBench>(std::move(db));
  }
};

}  // namespace

int main(int argc, char** argv) {
  WiredTigerEngine engine;
  return sb::DriverMain(engine, argc, argv);
}
