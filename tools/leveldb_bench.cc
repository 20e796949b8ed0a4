// leveldb_bench: the LevelDB benchmark driver behind `symbiosis bench
// leveldb`. The command line, the load and run loops and the output are the
// shared driver's (tools/driver/driver.h); this file is LevelDB's part:
// writing a DB, and opening it with Symbiosis (symbiosis/leveldb.h) under
// a budget:
//   kernel    the page cache, inside a memory cgroup of M + --reserve
//             (default 32 MiB: LevelDB's memtables, table metadata and our
//             heap; measured at 15-25 MiB in these runs)
//   emulated  table reads through a user-space page cache of M - M_a
// --app-cache-overhead: the share of a block-cache growth that symbiosis
// charges to the page cache (symbiosis::leveldb::Options).

#include <leveldb/db.h>
#include <leveldb/write_batch.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "symbiosis/leveldb.h"

namespace {

namespace fs = std::filesystem;
namespace sb = symbiosis::bench;
namespace sl = symbiosis::leveldb;

// true if `s` is OK; else false with its text in `error`.
bool Check(const ::leveldb::Status& s, std::string* error) {
  if (!s.ok()) *error = s.ToString();
  return s.ok();
}

class LevelDbLoader final : public sb::BenchLoader {
 public:
  explicit LevelDbLoader(std::unique_ptr<::leveldb::DB> db) : db_(std::move(db)) {}

  bool Write(const std::vector<std::pair<std::string, std::string>>& pairs,
             std::string* error) override {
    ::leveldb::WriteBatch batch;
    for (const auto& [key, value] : pairs) batch.Put(key, value);
    return Check(db_->Write(::leveldb::WriteOptions(), &batch), error);
  }

  bool Finish(std::string* error) override {
    db_->CompactRange(nullptr, nullptr);
    db_.reset();
    return true;
  }

 private:
  std::unique_ptr<::leveldb::DB> db_;
};

class LevelDbBench final : public sb::BenchDb {
 public:
  explicit LevelDbBench(std::unique_ptr<sl::Db> db) : db_(std::move(db)) {}

  bool Get(const std::string& key, std::string* value, std::string* error) override {
    return Check(db_->db()->Get(::leveldb::ReadOptions(), key, value), error);
  }
  bool Put(const std::string& key, const std::string& value, std::string* error) override {
    return Check(db_->db()->Put(::leveldb::WriteOptions(), key, value), error);
  }
  bool Scan(const std::string& key, uint32_t count, std::string* error) override {
    std::unique_ptr<::leveldb::Iterator> it(db_->db()->NewIterator(::leveldb::ReadOptions()));
    uint32_t n = 0;
    for (it->Seek(key); it->Valid() && n < count; it->Next()) ++n;
    return Check(it->status(), error);
  }
  sb::EngineStats Stats() const override { return sb::FromPluginStats(db_->GetStats()); }
  bool Suspend(bool suspended) override {
    db_->Suspend(suspended);
    return true;
  }

 private:
  std::unique_ptr<sl::Db> db_;
};

class LevelDbEngine final : public sb::BenchEngine {
 public:
  std::string name() const override { return "leveldb"; }
  std::vector<std::string> budgets() const override { return {"kernel", "emulated"}; }
  bool NeedsCgroup(const std::string& budget) const override { return budget == "kernel"; }
  std::string FallbackBudget() const override { return "emulated"; }
  uint64_t min_memory_bytes() const override { return sl::kMinMemoryBytes; }
  uint64_t default_ma_bytes(uint64_t) const override { return 8ull << 20; }  // LevelDB's default

  uint64_t TableBytes(const std::string& path) const override {
    uint64_t bytes = 0;
    for (const auto& entry : fs::directory_iterator(path)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".ldb" || ext == ".sst") bytes += entry.file_size();
    }
    return bytes;
  }

  std::unique_ptr<sb::BenchLoader> Create(const std::string& path, std::string* error) override {
    ::leveldb::Options options;
    options.create_if_missing = true;
    options.error_if_exists = true;
    options.write_buffer_size = 16 << 20;
    ::leveldb::DB* raw = nullptr;
    const ::leveldb::Status status = ::leveldb::DB::Open(options, path, &raw);
    if (!status.ok()) {
      *error = status.ToString();
      return nullptr;
    }
    return std::make_unique<LevelDbLoader>(std::unique_ptr<::leveldb::DB>(raw));
  }

  std::unique_ptr<sb::BenchDb> Open(const sb::OpenRequest& request, std::string* error) override {
    sl::Options options;
    options.engine.create_if_missing = false;
    options.budget = request.budget == "emulated" ? sl::Budget::kEmulated : sl::Budget::kKernel;
    // Kernel budget: M from the cgroup we run in; emulated: given.
    options.memory_bytes = request.in_cgroup ? 0 : request.memory;
    options.controller.memory_reserve_bytes = request.reserve;
    if (request.app_cache_overhead) options.kernel_app_cache_overhead = *request.app_cache_overhead;
    options.adaptive = !request.static_ma_bytes.has_value();
    options.static_ma_bytes = request.static_ma_bytes.value_or(0);
    options.device_latency_ns = request.device_latency_ns;
    std::unique_ptr<sl::Db> db;
    const ::leveldb::Status status = sl::Open(options, request.path, &db);
    if (!status.ok()) {
      *error = status.ToString();
      return nullptr;
    }
    return std::make_unique<LevelDbBench>(std::move(db));
  }
};

}  // namespace

int main(int argc, char** argv) {
  LevelDbEngine engine;
  return sb::DriverMain(engine, argc, argv);
}
