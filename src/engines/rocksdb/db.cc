#include <rocksdb/convenience.h>
#include <rocksdb/env.h>
#include <rocksdb/listener.h>

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "budget/heap_release.h"
#include "budget/page_cache_room.h"
#include "engines/common/engine_kit.h"
#include "engines/rocksdb/adapter.h"
#include "engines/rocksdb/entry_metadata.h"
#include "engines/rocksdb/flash_tier.h"
#include "engines/rocksdb/observing_cache.h"
#include "engines/rocksdb/observing_secondary_cache.h"
#include "engines/rocksdb/slab_allocator.h"
#include "engines/rocksdb/slow_file_system.h"
#include "engines/rocksdb/table_file_system.h"
#include "symbiosis/cgroup.h"
#include "symbiosis/error.h"
#include "symbiosis/memory_budget.h"
#include "budget/residency.h"
#include "model/rocksdb_cache_model.h"
#include "symbiosis/rocksdb.h"

namespace symbiosis::rocksdb {
namespace {

using engine_kit::MiB;

class BudgetImpl;

// The block size the flash tier's index is sized for (RocksDB's default).
constexpr uint32_t kFlashEntryBytes = 4096;

// Deleted table files: their entries leave the key map, the ghosts and
// the secondary caches. Compactions: the flash tier's insertion control.
class TableListener final : public ::rocksdb::EventListener {
 public:
  TableListener(BudgetImpl* budget, uint32_t db_index) : budget_(budget), db_index_(db_index) {}
  const char* Name() const override { return "SymbiosisTableListener"; }
  void OnTableFileDeleted(const ::rocksdb::TableFileDeletionInfo& info) override;
  void OnCompactionBegin(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(::rocksdb::DB* db, const ::rocksdb::CompactionJobInfo& info) override;

 private:
  BudgetImpl* const budget_;
  const uint32_t db_index_;
};

// The Controller's decisions go to the two caches. A shrink of the block
// cache in the kernel budget gives the freed heap back, or the page cache
// never gets it (budget/heap_release.h).
class CacheResizer final : public Resizer {
 public:
  CacheResizer(::rocksdb::Cache* primary, ::rocksdb::SecondaryCache* secondary, bool trim)
      : primary_(primary), secondary_(secondary), trim_(trim) {}
  void SetAppCacheCapacity(uint64_t bytes) override {
    const bool shrink = bytes < primary_->GetCapacity();
    primary_->SetCapacity(bytes);
    if (shrink && trim_) ReleaseFreeHeap();
  }
  void SetSecondTierCapacity(uint64_t bytes) override {
    if (secondary_ != nullptr) secondary_->SetCapacity(bytes);
  }

 private:
  ::rocksdb::Cache* const primary_;
  ::rocksdb::SecondaryCache* const secondary_;
  const bool trim_;
};

class DbImpl final : public Db {
 public:
  DbImpl(std::shared_ptr<BudgetImpl> budget, std::unique_ptr<::rocksdb::Env> env)
      : budget_(std::move(budget)), env_(std::move(env)) {}
  // Handles and the DB go first (closing waits for compactions, which use
  // the Env and the caches), then the Env; the budget last.
  ~DbImpl() override {
    for (::rocksdb::ColumnFamilyHandle* h : handles_) db_->DestroyColumnFamilyHandle(h);
    handles_.clear();
    db_.reset();
    env_.reset();
  }

  ::rocksdb::DB* db() const override { return db_.get(); }
  const std::vector<::rocksdb::ColumnFamilyHandle*>& handles() const override { return handles_; }
  Stats GetStats() const override;
  void Suspend(bool suspended) override;

  std::unique_ptr<::rocksdb::DB> db_;
  std::vector<::rocksdb::ColumnFamilyHandle*> handles_;

 private:
  const std::shared_ptr<BudgetImpl> budget_;
  std::unique_ptr<::rocksdb::Env> env_;
};

class BudgetImpl final : public SharedBudget, public std::enable_shared_from_this<BudgetImpl> {
 public:
  // `memory`: what the caches split (M less the flash tier's DRAM).
  BudgetImpl(const BudgetOptions& options, uint64_t memory, std::shared_ptr<FlashTier> flash,
             std::shared_ptr<SlowDevice> slow)
      : options_(options), memory_(memory), flash_(std::move(flash)), slow_(std::move(slow)) {}
  ~BudgetImpl() override {
    room_.reset();
    adapter_.link().Set(nullptr);
  }

  ::rocksdb::Status Init();

  ::rocksdb::Status Open(const ::rocksdb::Options& engine,
                         const ::rocksdb::BlockBasedTableOptions& table, const std::string& path,
                         const std::vector<::rocksdb::ColumnFamilyDescriptor>& column_families,
                         std::unique_ptr<Db>* db) override;
  Stats GetStats() const override;
  void SetAppCacheCapacity(uint64_t bytes) override {
    resizer_->SetAppCacheCapacity(bytes);
    resizer_->SetSecondTierCapacity(memory_ - std::min(bytes, memory_));
  }
  ::rocksdb::Status SetFlashCapacity(uint64_t bytes) override {
    if (flash_ == nullptr) {
      return ::rocksdb::Status::NotSupported(
          "this budget has no flash tier; give BudgetOptions::flash.path to have one");
    }
    return flash_->SetCapacity(bytes);
  }
  void Suspend(bool suspended) override { adapter_.link().Suspend(suspended); }
  size_t DeletedTableKeys() override {
    std::lock_guard<std::mutex> lock(mu_);
    return deleted_keys_.size();
  }
  size_t DeletedTableEntries() override {
    if (secondary_ == nullptr) return 0;
    std::lock_guard<std::mutex> lock(mu_);
    return secondary_->Holds(deleted_keys_);
  }

  // A compaction of these tables began, or failed: the flash tier stops,
  // or resumes, taking their blocks.
  void OnCompaction(const std::vector<uint64_t>& file_ids, bool began) {
    if (flash_ == nullptr) return;
    std::vector<uint64_t> prefixes;
    for (const uint64_t id : file_ids) {
      for (const uint64_t prefix : adapter_.key_map().PrefixesOf(id)) prefixes.push_back(prefix);
    }
    if (began) {
      flash_->OnCompactionBegin(prefixes);
    } else {
      flash_->OnCompactionFailed(prefixes);
    }
  }

  void OnTableDeleted(uint64_t file_id) {
    const std::vector<uint64_t> prefixes = adapter_.OnFileDeleted(file_id);
    if (flash_ != nullptr) flash_->OnTablesDeleted(prefixes);
    if (secondary_ == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (uint64_t prefix : prefixes) {
        for (std::string& key : secondary_->KeysOf(prefix)) deleted_keys_.push_back(std::move(key));
      }
    }
    secondary_->DropFile(prefixes);
  }

 private:
  bool engine_budget() const { return options_.budget == Budget::kEngine; }
  ::rocksdb::Status StartController(const std::string& first_path);

  const BudgetOptions options_;
  const uint64_t memory_;
  const std::shared_ptr<FlashTier> flash_;   // engine budget, if asked
  const std::shared_ptr<SlowDevice> slow_;   // engine budget, if asked
  Adapter adapter_;
  std::shared_ptr<SlabAllocator> slab_allocator_;        // engine budget, if asked
  std::shared_ptr<ObservingSecondaryCache> secondary_;  // engine budget
  std::shared_ptr<ObservingCache> primary_;
  std::unique_ptr<CacheResizer> resizer_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<PageCacheRoomMonitor> room_;
  int primary_shard_bits_ = 0;    // num_shard_bits of the block cache
  int secondary_shard_bits_ = 0;  // and of the compressed cache
  std::mutex mu_;
  uint32_t next_db_index_ = 0;          // guarded by mu_
  std::vector<std::string> deleted_keys_;  // guarded by mu_; for tests
};

void TableListener::OnTableFileDeleted(const ::rocksdb::TableFileDeletionInfo& info) {
  if (!info.status.ok()) return;
  if (const std::optional<uint64_t> number = TableFileNumber(info.file_path)) {
    budget_->OnTableDeleted(TableFileId(db_index_, *number));
  }
}

namespace {

// The compaction's inputs that it rewrites: not those it only moves to
// another level (they are among its outputs too).
std::vector<uint64_t> RewrittenInputs(const ::rocksdb::CompactionJobInfo& info, uint32_t db_index,
                                      bool moved) {
  std::vector<uint64_t> outputs;
  for (const std::string& path : info.output_files) {
    if (const std::optional<uint64_t> n = TableFileNumber(path)) outputs.push_back(*n);
  }
  std::vector<uint64_t> ids;
  for (const ::rocksdb::CompactionFileInfo& input : info.input_file_infos) {
    const bool is_output =
        std::find(outputs.begin(), outputs.end(), input.file_number) != outputs.end();
    if (is_output == moved) ids.push_back(TableFileId(db_index, input.file_number));
  }
  return ids;
}

}  // namespace

void TableListener::OnCompactionBegin(::rocksdb::DB* /*db*/,
                                      const ::rocksdb::CompactionJobInfo& info) {
  budget_->OnCompaction(RewrittenInputs(info, db_index_, /*moved=*/false), /*began=*/true);
}

void TableListener::OnCompactionCompleted(::rocksdb::DB* /*db*/,
                                          const ::rocksdb::CompactionJobInfo& info) {
  // A failed compaction keeps its inputs; a move keeps its file.
  if (!info.status.ok()) {
    budget_->OnCompaction(RewrittenInputs(info, db_index_, /*moved=*/false), /*began=*/false);
  }
  budget_->OnCompaction(RewrittenInputs(info, db_index_, /*moved=*/true), /*began=*/false);
}

::rocksdb::Status BudgetImpl::Init() {
  const uint64_t initial_app = std::min(
      memory_, options_.adaptive ? options_.controller.initial_ma_bytes : options_.static_ma_bytes);
  // RocksDB's default shard counts, fixed at creation; set here so that
  // the controller's model of the caches can copy them.
  ::rocksdb::LRUCacheOptions lru;
  lru.capacity = initial_app;
  lru.num_shard_bits = primary_shard_bits_ = RocksDbDefaultShardBits(lru.capacity);
  if (engine_budget()) {
    ::rocksdb::CompressedSecondaryCacheOptions secondary;
    secondary.capacity = memory_ - initial_app;
    secondary.num_shard_bits = secondary_shard_bits_ = RocksDbDefaultShardBits(secondary.capacity);
    secondary.compression_type = options_.secondary_compression;
    if (options_.secondary_slab_allocator) {
      // The cache holds at most M; twice that, and room for the buffers a
      // lookup or an insert uses for a moment, leaves the slabs room to be
      // part empty. Beyond it, malloc.
      slab_allocator_ = std::make_shared<SlabAllocator>(2 * memory_ + (256ull << 20));
      secondary.memory_allocator = slab_allocator_;
    }
    // The cache is created whatever the type, and then fails every insert
    // of a codec this build lacks: refuse it here, while it can be said.
    const std::vector<::rocksdb::CompressionType> built = ::rocksdb::GetSupportedCompressions();
    if (secondary.compression_type != ::rocksdb::kNoCompression &&
        std::find(built.begin(), built.end(), secondary.compression_type) == built.end()) {
      std::string name;
      if (!::rocksdb::GetStringFromCompressionType(&name, secondary.compression_type).ok()) {
        name = std::to_string(int{secondary.compression_type});
      }
      return ::rocksdb::Status::InvalidArgument(
          "cannot create the compressed secondary cache: this RocksDB has no " + name +
          " codec; set secondary_compression to kSnappyCompression or kLZ4Compression");
    }
    std::shared_ptr<::rocksdb::SecondaryCache> real = ::rocksdb::NewCompressedSecondaryCache(secondary);
    if (real == nullptr) {
      return ::rocksdb::Status::InvalidArgument(
          "RocksDB could not create its compressed secondary cache; check secondary_compression");
    }
    secondary_ = std::make_shared<ObservingSecondaryCache>(std::move(real), &adapter_, flash_);
    lru.secondary_cache = secondary_;
  }
  std::shared_ptr<::rocksdb::Cache> cache = ::rocksdb::NewLRUCache(lru);
  primary_ = std::make_shared<ObservingCache>(std::move(cache), &adapter_);
  resizer_ = std::make_unique<CacheResizer>(primary_->target(), secondary_.get(),
                                            /*trim=*/!engine_budget());
  return ::rocksdb::Status::OK();
}

::rocksdb::Status BudgetImpl::StartController(const std::string& first_path) {
  ControllerConfig config = options_.controller;
  config.memory_bytes = memory_;
  config.second_tier_owned = engine_budget();
  if (engine_budget()) {
    // Both tiers simulated as RocksDB runs them; no pages, no read-ahead.
    config.rocksdb_tiers = RocksDbTiers{primary_shard_bits_, secondary_shard_bits_,
                                        EntryMetadataBytes()};
    config.app_cache_overhead = 0;
    // Settings left at their defaults take the engine budget's own.
    const ControllerConfig defaults;
    // The compressed cache's cliff is sharp: near it the model undercounts
    // device reads (controller_config.h, read_tie_margin).
    if (!config.read_tie_margin) config.read_tie_margin = 0.03;
    // They fill slowly: a block enters the secondary at its second
    // eviction. In hotspot10 at M/D_u 0.8 the model, filling fast, served
    // 0.998 of its block-cache misses from the secondary after 1M accesses
    // (docs/decisions/rocksdb-tier-model.md). A round's warm-up is
    // lengthened to match.
    if (config.round_warmup_accesses == defaults.round_warmup_accesses &&
        config.max_round_warmup_accesses == defaults.max_round_warmup_accesses) {
      config.round_warmup_accesses = 1'000'000;
      config.max_round_warmup_accesses = 1'500'000;
    }
  } else {
    config.app_cache_overhead = options_.kernel_app_cache_overhead;
    if (options_.detect_readahead) {
      config.max_readahead_pages =
          engine_kit::DbReadaheadPages(first_path).value_or(config.max_readahead_pages);
    }
  }
  if (options_.min_sampled_groups > 0) {
    config.sample_rate =
        SampleRateForTables(config, engine_kit::TableBytes(first_path, {".sst"}),
                            options_.min_sampled_groups);
  }
  try {
    controller_ = std::make_unique<Controller>(config, resizer_.get());
  } catch (const InputError& e) {
    return ::rocksdb::Status::InvalidArgument(e.what());
  }
  adapter_.link().Set(controller_.get());
  if (!engine_budget() && options_.memory_bytes == 0 && options_.track_page_cache_room) {
    const ::rocksdb::Cache* cache = primary_.get();
    room_ = engine_kit::StartPageCacheRoomMonitor(
        memory_, [cache] { return uint64_t{cache->GetUsage()}; }, controller_.get());
  }
  return ::rocksdb::Status::OK();
}

::rocksdb::Status BudgetImpl::Open(
    const ::rocksdb::Options& engine, const ::rocksdb::BlockBasedTableOptions& table,
    const std::string& path, const std::vector<::rocksdb::ColumnFamilyDescriptor>& column_families,
    std::unique_ptr<Db>* db) {
  uint32_t db_index = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_db_index_ >= (1u << 16)) {
      return ::rocksdb::Status::InvalidArgument("a budget holds at most 65536 DBs");
    }
    db_index = next_db_index_++;
    if (options_.adaptive && controller_ == nullptr) {
      const ::rocksdb::Status s = StartController(path);
      if (!s.ok()) return s;
    }
  }
  const std::shared_ptr<::rocksdb::FileSystem> base =
      engine.env != nullptr ? engine.env->GetFileSystem() : ::rocksdb::FileSystem::Default();
  std::shared_ptr<::rocksdb::FileSystem> below = base;
  if (slow_ != nullptr) below = std::make_shared<SlowFileSystem>(base, slow_);
  std::function<void(uint64_t)> on_device_read;
  if (flash_ != nullptr) {
    FlashTier* flash = flash_.get();
    on_device_read = [flash](uint64_t ns) { flash->OnStorageRead(ns); };
  }
  auto fs = std::make_shared<TableFileSystem>(below, &adapter_, db_index, std::move(on_device_read));
  std::unique_ptr<::rocksdb::Env> env = ::rocksdb::NewCompositeEnv(fs);
  ::rocksdb::Options options = engine;
  options.env = env.get();
  if (engine_budget()) options.use_direct_reads = true;
  options.listeners.push_back(std::make_shared<TableListener>(this, db_index));
  ::rocksdb::BlockBasedTableOptions t = table;
  t.block_cache = primary_;
  std::shared_ptr<::rocksdb::TableFactory> factory(::rocksdb::NewBlockBasedTableFactory(t));
  options.table_factory = factory;

  auto impl = std::make_unique<DbImpl>(shared_from_this(), std::move(env));
  ::rocksdb::DB* raw = nullptr;
  ::rocksdb::Status s;
  if (column_families.empty()) {
    s = ::rocksdb::DB::Open(options, path, &raw);
  } else {
    std::vector<::rocksdb::ColumnFamilyDescriptor> families = column_families;
    for (auto& family : families) family.options.table_factory = factory;
    s = ::rocksdb::DB::Open(::rocksdb::DBOptions(options), path, families, &impl->handles_, &raw);
  }
  if (!s.ok()) return s;
  impl->db_.reset(raw);
  *db = std::move(impl);
  return s;
}

Stats BudgetImpl::GetStats() const {
  Stats s;
  s.budget = options_.budget;
  s.adaptive = options_.adaptive;
  s.memory_bytes = memory_;
  s.ma_bytes = primary_->GetCapacity();
  s.app_usage_bytes = primary_->GetUsage();
  if (secondary_ != nullptr) {
    size_t capacity = 0;
    if (secondary_->GetCapacity(capacity).ok()) s.second_tier_bytes = capacity;
  }
  if (slab_allocator_ != nullptr) {
    s.secondary_resident_bytes = slab_allocator_->ResidentBytes();
    s.secondary_allocated_bytes = slab_allocator_->AllocatedBytes();
    s.secondary_malloc_fallbacks = slab_allocator_->MallocFallbacks();
  }
  const AccessCounts c = adapter_.Counts();
  s.lookups = c.lookups;
  s.app_hits = c.hits;
  s.reads = c.reads;
  s.second_tier_hits = c.second_tier_hits;
  s.miss_ns = c.miss_ns;
  s.unmapped_lookups = c.unmapped;
  s.suspended = adapter_.link().suspended();
  if (flash_ != nullptr) s.flash = flash_->Stats();
  if (controller_) s.controller = controller_->Stats();
  return s;
}

Stats DbImpl::GetStats() const { return budget_->GetStats(); }
void DbImpl::Suspend(bool suspended) { budget_->Suspend(suspended); }

}  // namespace

uint64_t FlashTierDramBytes(const FlashTierOptions& options) {
  return FlashTier::PlannedDramBytes(options, kFlashEntryBytes);
}

const char* BudgetName(Budget budget) {
  return budget == Budget::kEngine ? "engine" : "kernel";
}

::rocksdb::Status SharedBudget::Create(const BudgetOptions& options,
                                       std::shared_ptr<SharedBudget>* budget) {
  const bool engine = options.budget == Budget::kEngine;
  if (engine && options.memory_bytes == 0) {
    return ::rocksdb::Status::InvalidArgument(
        "the engine budget needs memory_bytes (M); only the kernel budget reads M from the cgroup");
  }
  uint64_t memory = 0;
  try {
    memory = ResolveEngineMemory(options.memory_bytes, options.controller.memory_reserve_bytes,
                                 options.controller.default_ma_bytes, kMinMemoryBytes,
                                 "RocksDB");
  } catch (const std::exception& e) {  // InputError, CgroupError
    return ::rocksdb::Status::InvalidArgument(e.what());
  }
  std::shared_ptr<FlashTier> flash;
  std::shared_ptr<SlowDevice> slow;
  if (!options.flash.path.empty() || options.slow_storage.median_ns > 0) {
    if (!engine) {
      return ::rocksdb::Status::InvalidArgument(
          "the flash tier and slow storage need the engine budget (direct reads: in the kernel "
          "budget the page cache sits between the tiers); set budget to kEngine");
    }
    try {
      if (options.slow_storage.median_ns > 0) {
        slow = std::make_shared<SlowDevice>(options.slow_storage);
      }
      if (!options.flash.path.empty()) {
        const uint64_t dram = FlashTier::PlannedDramBytes(options.flash, kFlashEntryBytes);
        if (memory < dram + kMinMemoryBytes) {
          return ::rocksdb::Status::InvalidArgument(
              "the flash tier's index and buffers take " + MiB(dram) + " of the budget " +
              MiB(memory) + ", leaving less than " + MiB(kMinMemoryBytes) +
              " for the caches; raise the budget or shrink the tier");
        }
        memory -= dram;
        flash = std::make_shared<FlashTier>(options.flash, kFlashEntryBytes);
      }
    } catch (const InputError& e) {
      return ::rocksdb::Status::InvalidArgument(e.what());
    }
  }
  if (!options.adaptive && options.static_ma_bytes > memory) {
    return ::rocksdb::Status::InvalidArgument(
        "static_ma_bytes " + MiB(options.static_ma_bytes) +
        (flash != nullptr ? " is above the " + MiB(memory) + " the caches have beside the flash tier"
                          : " is above the budget " + MiB(memory)) +
        "; lower it");
  }
  if (options.adaptive) {
    try {
      ControllerConfig config = options.controller;
      config.memory_bytes = memory;
      ValidateControllerConfig(config);
    } catch (const InputError& e) {
      return ::rocksdb::Status::InvalidArgument(e.what());
    }
  }
  auto impl = std::make_shared<BudgetImpl>(options, memory, std::move(flash), std::move(slow));
  const ::rocksdb::Status s = impl->Init();
  if (!s.ok()) return s;
  *budget = std::move(impl);
  return s;
}

::rocksdb::Status Open(const Options& options, const std::string& path, std::unique_ptr<Db>* db) {
  std::shared_ptr<SharedBudget> budget;
  const ::rocksdb::Status s = SharedBudget::Create(options.budget, &budget);
  if (!s.ok()) return s;
  return budget->Open(options.engine, options.table, path, {}, db);
}

}  // namespace symbiosis::rocksdb
