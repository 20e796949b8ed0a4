#include <leveldb/env.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "budget/heap_release.h"
#include "budget/page_cache_room.h"
#include "engines/common/engine_kit.h"
#include "engines/leveldb/adapter.h"
#include "engines/leveldb/resizable_cache.h"
#include "engines/leveldb/table_env.h"
#include "symbiosis/cgroup.h"
#include "budget/emulated_page_cache.h"
#include "symbiosis/error.h"
#include "symbiosis/memory_budget.h"
#include "symbiosis/leveldb.h"
#include "budget/residency.h"

namespace symbiosis::leveldb {
namespace {

using engine_kit::MiB;

// Sets the block cache's capacity; after a shrink, gives the heap back
// (ReleaseFreeHeap: every arena's free pages), or the kernel budget's page
// cache never gets the memory: glibc keeps freed heap memory mapped,
// jemalloc as dirty pages. In the first demo runs a block cache shrunk from
// 224 MiB to 8 MiB left the process at 230 MiB resident and the page cache
// at half its hit ratio. The churn after a shrink allocates into (and
// touches again) the holes between the blocks still cached, so the release
// also runs before each PageCacheRoomMonitor measurement, every second
// (about 1 ms each, 15 ms the first time).
//
// Trimming alone leaves a large shrink's cost behind: the blocks still
// cached sit scattered over the heap the larger cache used, each pinning
// the pages around it. In the demo (M = 256 MiB, the cache shrunk from
// 128 MiB back to 8 MiB) LevelDB's other memory stayed 16 MiB where a
// never-grown cache's is 8 MiB, and the page cache lost the difference.
// So a shrink that ends at or below kPruneAtBytes, after the cache held at
// least kPruneRatio times that much, first empties the cache: the freed
// blocks coalesce and the new ones are allocated densely (13 MiB measured;
// the rest is the heap's other tenants). Emptying 8 MiB means refilling
// about 2,000 blocks, mostly from the page cache: not the flush of a large
// cache that the Tracker's gradual steps exist to avoid.
class BlockCacheSizer {
 public:
  static constexpr uint64_t kPruneAtBytes = 8 << 20;  // LevelDB's default
  static constexpr uint64_t kPruneRatio = 4;

  explicit BlockCacheSizer(ResizableCache* cache) : cache_(cache), peak_(cache->capacity()) {}

  void SetCapacity(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    const bool shrink = bytes < cache_->capacity();
    cache_->SetCapacity(bytes);
    peak_ = std::max(peak_, bytes);
    if (!shrink) return;
    if (bytes <= kPruneAtBytes && peak_ >= kPruneRatio * std::max<uint64_t>(bytes, 1)) {
      cache_->Prune();
      peak_ = bytes;
    }
    ReleaseFreeHeap();
  }

 private:
  std::mutex mu_;
  ResizableCache* const cache_;
  uint64_t peak_;  // the largest capacity since the cache was last emptied
};

// The Controller's decisions go to the block cache and, with the emulated
// budget, to the user-space page cache.
class CacheResizer final : public Resizer {
 public:
  CacheResizer(BlockCacheSizer* sizer, EmulatedPageCache* emulated)
      : sizer_(sizer), emulated_(emulated) {}
  void SetAppCacheCapacity(uint64_t bytes) override { sizer_->SetCapacity(bytes); }
  void SetSecondTierCapacity(uint64_t bytes) override {
    if (emulated_ != nullptr) emulated_->SetCapacity(bytes);
  }

 private:
  BlockCacheSizer* const sizer_;
  EmulatedPageCache* const emulated_;
};

// Members are declared in construction order; the DB is destroyed first
// (explicitly), then what it used.
class DbImpl final : public Db {
 public:
  explicit DbImpl(const Options& options) : options_(options) {}
  // The DB goes first: closing it waits for its compaction, which still
  // uses the Env and the cache. The controller goes before the adapter
  // that points at it.
  ~DbImpl() override {
    db_.reset();
    adapter_->link().Set(nullptr);
  }

  ::leveldb::Status Init(const std::string& path, uint64_t memory);

  ::leveldb::DB* db() const override { return db_.get(); }
  Stats GetStats() const override;
  void SetAppCacheCapacity(uint64_t bytes) override {
    sizer_->SetCapacity(bytes);
    if (emulated_ != nullptr) emulated_->SetCapacity(memory_ - std::min(bytes, memory_));
  }
  void Suspend(bool suspended) override { adapter_->link().Suspend(suspended); }

 private:
  const Options options_;
  uint64_t memory_ = 0;
  std::unique_ptr<EmulatedPageCache> emulated_;
  std::unique_ptr<Adapter> adapter_;
  std::unique_ptr<ResizableCache> cache_;
  std::unique_ptr<BlockCacheSizer> sizer_;
  std::unique_ptr<CacheResizer> resizer_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<PageCacheRoomMonitor> room_;
  std::unique_ptr<TableEnv> env_;
  std::unique_ptr<::leveldb::DB> db_;
};

::leveldb::Status DbImpl::Init(const std::string& path, uint64_t memory) {
  memory_ = memory;
  const bool emulated = options_.budget == Budget::kEmulated;
  const uint64_t initial_app =
      options_.adaptive ? options_.controller.initial_ma_bytes : options_.static_ma_bytes;
  if (emulated) {
    EmulatedPageCacheOptions e;
    e.capacity_bytes = memory - std::min(initial_app, memory);
    e.max_capacity_bytes = memory;
    e.device_latency_ns = options_.device_latency_ns;
    e.linux_model = options_.emulated_linux_model;
    e.max_readahead_pages = options_.emulated_max_readahead_pages;
    emulated_ = std::make_unique<EmulatedPageCache>(e);
  }
  adapter_ = std::make_unique<Adapter>();
  cache_ = std::make_unique<ResizableCache>(initial_app, adapter_.get());
  sizer_ = std::make_unique<BlockCacheSizer>(cache_.get());
  if (options_.adaptive) {
    ControllerConfig config = options_.controller;
    config.memory_bytes = memory;
    config.second_tier_owned = emulated;
    config.app_cache_overhead = emulated ? 0 : options_.kernel_app_cache_overhead;
    // Every read may hit the page cache, where L_e is small beside C_k
    // (controller_config.h, change_floor_on_parts).
    if (!config.change_floor_on_parts) config.change_floor_on_parts = true;
    if (options_.min_sampled_groups > 0) {
      config.sample_rate = SampleRateForTables(
          config, engine_kit::TableBytes(path, {".ldb", ".sst"}), options_.min_sampled_groups);
    }
    if (emulated) {
      config.max_readahead_pages = options_.emulated_max_readahead_pages;
    } else if (options_.detect_readahead) {
      config.max_readahead_pages =
          engine_kit::DbReadaheadPages(path).value_or(config.max_readahead_pages);
    }
    resizer_ = std::make_unique<CacheResizer>(sizer_.get(), emulated_.get());
    controller_ = std::make_unique<Controller>(config, resizer_.get());
    adapter_->link().Set(controller_.get());
    if (!emulated && options_.memory_bytes == 0 && options_.track_page_cache_room) {
      const ResizableCache* cache = cache_.get();
      room_ = engine_kit::StartPageCacheRoomMonitor(
          memory, [cache] { return cache->TotalCharge(); }, controller_.get());
    }
  }
  ::leveldb::Env* base = options_.engine.env != nullptr ? options_.engine.env
                                                        : ::leveldb::Env::Default();
  env_ = std::make_unique<TableEnv>(base, adapter_.get(), emulated_.get());
  ::leveldb::Options engine = options_.engine;
  engine.block_cache = cache_.get();
  engine.env = env_.get();
  ::leveldb::DB* db = nullptr;
  const ::leveldb::Status status = ::leveldb::DB::Open(engine, path, &db);
  db_.reset(db);
  return status;
}

Stats DbImpl::GetStats() const {
  Stats s;
  s.budget = options_.budget;
  s.adaptive = options_.adaptive;
  s.memory_bytes = memory_;
  s.ma_bytes = cache_->capacity();
  s.app_usage_bytes = cache_->TotalCharge();
  s.second_tier_bytes = emulated_ ? emulated_->capacity() : 0;
  const AccessCounts c = adapter_->Counts();
  s.lookups = c.lookups;
  s.app_hits = c.hits;
  s.reads = c.reads;
  s.second_tier_hits = c.second_tier_hits;
  s.miss_ns = c.miss_ns;
  s.suspended = adapter_->link().suspended();
  if (controller_) s.controller = controller_->Stats();
  return s;
}

}  // namespace

const char* BudgetName(Budget budget) {
  return budget == Budget::kKernel ? "kernel" : "emulated";
}

::leveldb::Status Open(const Options& options, const std::string& path,
                       std::unique_ptr<Db>* db) {
  db->reset();
  if (options.engine.block_cache != nullptr) {
    return ::leveldb::Status::InvalidArgument(
        "symbiosis::leveldb::Open", "engine.block_cache must be null: Symbiosis installs its own");
  }
  uint64_t memory = options.memory_bytes;
  if (memory == 0 && options.budget == Budget::kEmulated) {
    return ::leveldb::Status::InvalidArgument(
        "symbiosis::leveldb::Open", "the emulated budget needs memory_bytes; set M explicitly");
  }
  try {
    memory = ResolveEngineMemory(memory, options.controller.memory_reserve_bytes,
                                 options.controller.default_ma_bytes, kMinMemoryBytes,
                                 "LevelDB");
    if (!options.adaptive && options.static_ma_bytes > memory) {
      return ::leveldb::Status::InvalidArgument(
          "symbiosis::leveldb::Open", "static block cache " + MiB(options.static_ma_bytes) +
                                          " exceeds the budget " + MiB(memory) +
                                          "; lower static_ma_bytes");
    }
    if (options.adaptive) {
      ControllerConfig config = options.controller;
      config.memory_bytes = memory;
      ValidateControllerConfig(config);
    }
    auto impl = std::make_unique<DbImpl>(options);
    const ::leveldb::Status status = impl->Init(path, memory);
    if (!status.ok()) return status;
    *db = std::move(impl);
    return status;
  } catch (const std::exception& e) {  // InputError, CgroupError
    return ::leveldb::Status::InvalidArgument("symbiosis::leveldb::Open", e.what());
  }
}

}  // namespace symbiosis::leveldb
