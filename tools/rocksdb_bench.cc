// rocksdb_bench: the RocksDB benchmark driver behind `symbiosis bench
// rocksdb`. The command line, the load and run loops and the output are the
// shared driver's (tools/driver/driver.h); this file is RocksDB's part:
// writing a DB, and opening it with Symbiosis (symbiosis/rocksdb.h) under a
// budget:
//   engine  the paper's setting: a block cache of M_a and RocksDB's
//           compressed secondary cache of M - M_a, direct reads; no cgroup
//   kernel  the page cache below the block cache, inside a memory cgroup
//           of M + --reserve
// Tables are snappy-compressed, as LevelDB's, with 4 KiB blocks; the
// block cache holds data blocks only (index and filter blocks stay with
// the table readers, RocksDB's default).

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "symbiosis/rocksdb.h"

namespace {

namespace fs = std::filesystem;
namespace sb = symbiosis::bench;
namespace sr = symbiosis::rocksdb;

// The DB layout of both load and run.
::rocksdb::Options EngineOptions() {
  ::rocksdb::Options options;
  options.compression = ::rocksdb::kSnappyCompression;
  options.write_buffer_size = 16 << 20;
  options.max_open_files = -1;  // table readers opened once, at Open
  return options;
}

// true if `s` is OK; else false with its text in `error`.
bool Check(const ::rocksdb::Status& s, std::string* error) {
  if (!s.ok()) *error = s.ToString();
  return s.ok();
}

class RocksDbLoader final : public sb::BenchLoader {
 public:
  explicit RocksDbLoader(std::unique_ptr<::rocksdb::DB> db) : db_(std::move(db)) {}

  bool Write(const std::vector<std::pair<std::string, std::string>>& pairs,
             std::string* error) override {
    ::rocksdb::WriteBatch batch;
    for (const auto& [key, value] : pairs) batch.Put(key, value);
    return Check(db_->Write(::rocksdb::WriteOptions(), &batch), error);
  }

  bool Finish(std::string* error) override {
    ::rocksdb::CompactRangeOptions compact;
    compact.bottommost_level_compaction = ::rocksdb::BottommostLevelCompaction::kForce;
    if (!Check(db_->CompactRange(compact, nullptr, nullptr), error)) return false;
    const bool ok = Check(db_->Close(), error);
    db_.reset();
    return ok;
  }

 private:
  std::unique_ptr<::rocksdb::DB> db_;
};

class RocksDbBench final : public sb::BenchDb {
 public:
  explicit RocksDbBench(std::unique_ptr<sr::Db> db) : db_(std::move(db)) {}

  bool Get(const std::string& key, std::string* value, std::string* error) override {
    return Check(db_->db()->Get(::rocksdb::ReadOptions(), key, value), error);
  }
  bool Put(const std::string& key, const std::string& value, std::string* error) override {
    return Check(db_->db()->Put(::rocksdb::WriteOptions(), key, value), error);
  }
  bool Scan(const std::string& key, uint32_t count, std::string* error) override {
    std::unique_ptr<::rocksdb::Iterator> it(db_->db()->NewIterator(::rocksdb::ReadOptions()));
    uint32_t n = 0;
    for (it->Seek(key); it->Valid() && n < count; it->Next()) ++n;
    return Check(it->status(), error);
  }
  sb::EngineStats Stats() const override {
    const sr::Stats s = db_->GetStats();
    sb::EngineStats out = sb::FromPluginStats(s);
    if (s.budget == sr::Budget::kEngine) {
      out.engine_counters = {{"secondary_resident_bytes", s.secondary_resident_bytes},
                             {"secondary_allocated_bytes", s.secondary_allocated_bytes},
                             {"secondary_malloc_fallbacks", s.secondary_malloc_fallbacks}};
    }
    return out;
  }
  bool Suspend(bool suspended) override {
    db_->Suspend(suspended);
    return true;
  }

 private:
  std::unique_ptr<sr::Db> db_;
};

class RocksDbEngine final : public sb::BenchEngine {
 public:
  std::string name() const override { return "rocksdb"; }
  std::vector<std::string> budgets() const override { return {"engine", "kernel"}; }
  bool NeedsCgroup(const std::string& budget) const override { return budget == "kernel"; }
  std::string FallbackBudget() const override { return "engine"; }
  uint64_t min_memory_bytes() const override { return sr::kMinMemoryBytes; }
  uint64_t default_ma_bytes(uint64_t) const override { return 8ull << 20; }  // RocksDB's default

  uint64_t TableBytes(const std::string& path) const override {
    uint64_t bytes = 0;
    for (const auto& entry : fs::directory_iterator(path)) {
      if (entry.path().extension() == ".sst") bytes += entry.file_size();
    }
    return bytes;
  }

  std::unique_ptr<sb::BenchLoader> Create(const std::string& path, std::string* error) override {
    ::rocksdb::Options options = EngineOptions();
    options.create_if_missing = true;
    options.error_if_exists = true;
    ::rocksdb::BlockBasedTableOptions table;
    options.table_factory.reset(::rocksdb::NewBlockBasedTableFactory(table));
    ::rocksdb::DB* raw = nullptr;
    const ::rocksdb::Status status = ::rocksdb::DB::Open(options, path, &raw);
    if (!status.ok()) {
      *error = status.ToString();
      return nullptr;
    }
    return std::make_unique<RocksDbLoader>(std::unique_ptr<::rocksdb::DB>(raw));
  }

  std::unique_ptr<sb::BenchDb> Open(const sb::OpenRequest& request, std::string* error) override {
    sr::Options options;
    options.engine = EngineOptions();
    options.engine.create_if_missing = false;
    options.budget.budget = request.budget == "kernel" ? sr::Budget::kKernel : sr::Budget::kEngine;
    // Kernel budget: M from the cgroup we run in; engine: given.
    options.budget.memory_bytes = request.in_cgroup ? 0 : request.memory;
    options.budget.controller.memory_reserve_bytes = request.reserve;
    if (request.app_cache_overhead) {
      options.budget.kernel_app_cache_overhead = *request.app_cache_overhead;
    }
    options.budget.adaptive = !request.static_ma_bytes.has_value();
    options.budget.static_ma_bytes = request.static_ma_bytes.value_or(0);
    std::unique_ptr<sr::Db> db;
    const ::rocksdb::Status status = sr::Open(options, request.path, &db);
    if (!status.ok()) {
      *error = status.ToString();
      return nullptr;
    }
    return std::make_unique<RocksDbBench>(std::move(db));
  }
};

}  // namespace

int main(int argc, char** argv) {
  RocksDbEngine engine;
  return sb::DriverMain(engine, argc, argv);
}
