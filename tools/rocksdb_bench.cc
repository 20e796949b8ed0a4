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
//
// run's own flags (engine budget): a flash tier below the DRAM caches
// (--flash-size, --flash-path, --flash-region, --flash-opts, --flash-sync)
// and emulated slow storage under the tables (--slow-storage); see
// docs/flash-tier.md. With a flash tier, a static M_a is capped at what
// the caches have beside the tier's DRAM.

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "symbiosis/error.h"
#include "symbiosis/rocksdb.h"
#include "symbiosis/workload.h"

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

// --flash-opts: "all", "none" (the plain tier) or a comma list of bypass,
// insertion, drop. Throws InputError.
void ParseFlashOpts(const std::string& text, sr::FlashTierOptions* flash) {
  flash->bypass = flash->insertion_control = flash->compaction_drop = false;
  if (text == "none") return;
  if (text == "all") {
    flash->bypass = flash->insertion_control = flash->compaction_drop = true;
    return;
  }
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string name = text.substr(from, comma - from);
    if (name == "bypass") {
      flash->bypass = true;
    } else if (name == "insertion") {
      flash->insertion_control = true;
    } else if (name == "drop") {
      flash->compaction_drop = true;
    } else {
      throw symbiosis::InputError("--flash-opts '" + text + "' names '" + name +
                                  "'; use all, none, or a comma list of bypass, insertion, drop");
    }
    from = comma + 1;
  }
}

// --slow-storage: a preset, or MEDIAN[/P99] (e.g. 2ms/8ms). Throws
// InputError.
sr::SlowStorageOptions ParseSlowStorage(const std::string& text) {
  if (text == "hdd" || text == "network" || text == "none") return sr::SlowStoragePreset(text);
  const size_t slash = text.find('/');
  sr::SlowStorageOptions o;
  try {
    o.median_ns = static_cast<uint64_t>(
        symbiosis::ParseSeconds(text.substr(0, slash), "--slow-storage") * 1e9);
    o.p99_ns = slash == std::string::npos
                   ? o.median_ns
                   : static_cast<uint64_t>(
                         symbiosis::ParseSeconds(text.substr(slash + 1), "--slow-storage") * 1e9);
  } catch (const symbiosis::InputError&) {
    throw symbiosis::InputError("--slow-storage '" + text +
                                "' is not hdd, network, none or MEDIAN[/P99] like 2ms/8ms");
  }
  if (o.median_ns == 0 || o.p99_ns < o.median_ns) {
    throw symbiosis::InputError("--slow-storage '" + text +
                                "' needs a median above 0 and a p99 at or above it");
  }
  return o;
}

// The budget's flash tier and slow storage from run's flags. Throws
// InputError.
void ApplyFlashFlags(const sb::Flags& flags, const std::string& db, sr::BudgetOptions* budget) {
  if (flags.Has("slow-storage")) budget->slow_storage = ParseSlowStorage(flags.Get("slow-storage", ""));
  const bool any_flash = flags.Has("flash-path") || flags.Has("flash-region") ||
                         flags.Has("flash-opts") || flags.Has("flash-sync");
  if (!flags.Has("flash-size")) {
    if (any_flash) throw symbiosis::InputError("the --flash-* flags need --flash-size SIZE");
    return;
  }
  sr::FlashTierOptions& flash = budget->flash;
  flash.capacity_bytes = symbiosis::ParseBytes(flags.Get("flash-size", ""), "--flash-size");
  flash.path = flags.Get("flash-path", db);  // a directory: a file of the tier's in it
  flash.region_bytes = static_cast<uint32_t>(std::min<uint64_t>(
      UINT32_MAX, symbiosis::ParseBytes(flags.Get("flash-region", "1MiB"), "--flash-region")));
  ParseFlashOpts(flags.Get("flash-opts", "all"), &flash);
  flash.background_writes = !flags.Has("flash-sync");
  if (flash.capacity_bytes < 2ull * flash.region_bytes) {
    throw symbiosis::InputError("--flash-size " + flags.Get("flash-size", "") +
                                " is below two regions of " + flags.Get("flash-region", "1MiB") +
                                "; raise it or lower --flash-region");
  }
}

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
    if (s.flash.enabled) {
      const sr::FlashTierStats& f = s.flash;
      const std::vector<std::pair<std::string, uint64_t>> flash = {
          // The DRAM tiers' counts beside the tier's, to difference
          // between interval lines: reads = second-tier hits + flash
          // hits + storage reads.
          {"lookups", s.lookups},
          {"app_hits", s.app_hits},
          {"reads", s.reads},
          {"second_tier_hits", s.second_tier_hits},
          {"flash_capacity_bytes", f.capacity_bytes},
          {"flash_dram_bytes", f.dram_bytes},
          {"flash_lookups_received", f.lookups},
          {"flash_lookups", f.flash_lookups},
          {"flash_hits", f.flash_hits},
          {"flash_bypassed_absent", f.bypassed_absent},
          {"flash_bypassed_slow", f.bypassed_slow},
          {"flash_inserts", f.inserts},
          {"flash_inserts_invalid", f.inserts_invalid},
          {"flash_inserts_present", f.inserts_present},
          {"flash_inserts_slow", f.inserts_slow},
          {"flash_inserts_queue_full", f.inserts_queue_full},
          {"flash_inserts_written", f.inserts_written},
          {"flash_insert_ns", f.insert_ns},
          {"flash_bytes_written", f.bytes_written},
          {"flash_entries", f.entries},
          {"flash_invalid_entries", f.invalid_entries},
          {"flash_dropped_entries", f.dropped_entries},
          {"flash_mismatches", f.mismatches},
          {"flash_read_errors", f.read_errors},
          {"flash_index_evictions", f.index_evictions},
          {"flash_mean_hit_ns", f.mean_flash_hit_ns},
          {"storage_mean_read_ns", f.mean_storage_read_ns},
          {"flash_pays", f.flash_pays},
          {"flash_direct_io", f.direct_io},
          {"flash_failed", f.failed},
      };
      out.engine_counters.insert(out.engine_counters.end(), flash.begin(), flash.end());
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

  std::vector<sb::FlagSpec> RunFlags() const override {
    return {
        {"flash-size", "SIZE", "a flash tier of SIZE below the DRAM caches (engine budget; "
                               "default none)"},
        {"flash-path", "PATH", "the flash tier's file or directory (default: a file in the "
                               "DB's directory)"},
        {"flash-region", "SIZE", "the flash tier's unit of writes and eviction (default 1MiB)"},
        {"flash-opts", "LIST", "all, none (the plain tier), or a comma list of bypass, "
                               "insertion, drop (default all)"},
        {"flash-sync", "", "inserts write on the inserting thread (default: a queue)"},
        {"slow-storage", "S", "emulated table storage: hdd, network, none, or MEDIAN[/P99] "
                              "like 2ms/8ms (engine budget; default none)"},
    };
  }

  std::string CheckRunFlags(const sb::Flags& flags) const override {
    sr::BudgetOptions budget;
    try {
      ApplyFlashFlags(flags, "DB", &budget);
    } catch (const symbiosis::InputError& e) {
      return e.what();
    }
    return "";
  }

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
    try {
      ApplyFlashFlags(request.engine_flags, request.path, &options.budget);
    } catch (const symbiosis::InputError& e) {
      *error = e.what();
      return nullptr;
    }
    if (!options.budget.flash.path.empty() && options.budget.memory_bytes > 0) {
      const uint64_t dram = sr::FlashTierDramBytes(options.budget.flash);
      const uint64_t left = options.budget.memory_bytes - std::min(dram, options.budget.memory_bytes);
      options.budget.static_ma_bytes = std::min(options.budget.static_ma_bytes, left);
    }
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
