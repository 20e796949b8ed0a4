// Symbiosis for RocksDB: open an unmodified RocksDB (Debian's 7.8.3) whose
// block cache and the cache below it share one memory budget M, split
// online.
//
//   symbiosis::rocksdb::Options options;
//   options.engine.create_if_missing = true;
//   options.budget.memory_bytes = 256 << 20;
//   std::unique_ptr<symbiosis::rocksdb::Db> db;
//   rocksdb::Status s = symbiosis::rocksdb::Open(options, "/data/db", &db);
//   db->db()->Get(rocksdb::ReadOptions(), key, &value);
//   symbiosis::rocksdb::Stats stats = db->GetStats();
//
// Several DBs (and all their column families) can share one budget: make a
// Budget and open each DB in it (Budget::Open); they share the caches and
// one Controller.
//
// Only public extension points are used: BlockBasedTableOptions::
// block_cache gets RocksDB's own LRU cache wrapped to report each lookup,
// with (engine budget) RocksDB's own compressed secondary cache wrapped
// likewise; Options::env a composite Env over a FileSystemWrapper that
// reads table files and classifies each read exactly; an EventListener
// reports deleted tables. Nothing the engine stores or returns changes.
//
// Budgets:
//   kEngine  the paper's RocksDB setting: the block cache holds M_a of
//            uncompressed blocks, a compressed secondary cache M - M_a,
//            and table reads bypass the page cache (use_direct_reads). The
//            Controller resizes both caches. Needs no root.
//   kKernel  the kernel page cache is the second tier, as for LevelDB: run
//            the process in a memory cgroup of M + the reserve.

#ifndef SYMBIOSIS_ROCKSDB_H_
#define SYMBIOSIS_ROCKSDB_H_

#include <rocksdb/compression_type.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>
#include <rocksdb/table.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symbiosis/controller.h"

namespace symbiosis::rocksdb {

enum class Budget { kEngine, kKernel };
const char* BudgetName(Budget budget);  // "engine", "kernel"

// The smallest budget accepted.
constexpr uint64_t kMinMemoryBytes = 32ull << 20;

// A flash tier below the DRAM caches (engine budget): a log-structured
// cache in one file on a fast local device, for tables on slow storage,
// with SAS-Cache's three LSM-aware optimizations (docs/flash-tier.md).
// Its index and buffers are taken from M (FlashTierDramBytes: the caches
// split what is left); its flash size is the user's. The tier starts
// empty at every open.
struct FlashTierOptions {
  std::string path;  // a file or a directory on the flash; empty: no tier
  uint64_t capacity_bytes = 0;
  uint32_t region_bytes = 1u << 20;  // the unit of writes and of eviction
  // Lookups skip the tier when its index lacks the key, and lookups and
  // inserts skip it while a flash hit measures no faster than a read of
  // the storage below (docs/decisions/flash-bypass.md).
  bool bypass = true;
  // Blocks of tables being compacted away, or deleted, are not inserted.
  bool insertion_control = true;
  // Blocks of a deleted table leave the tier at once, not at eviction.
  bool compaction_drop = true;
  // Inserts go to a queue that a thread of the tier writes; a full queue
  // drops them. false: the inserting thread writes (a synchronous insert).
  bool background_writes = true;
  uint64_t write_queue_bytes = 2ull << 20;
};

// Slow storage under the table files, emulated (engine budget): each read
// of a table file waits until it has taken a latency drawn from a
// log-normal of this median and p99, and reads share a bandwidth cap.
// Presets: SlowStoragePreset("hdd"), ("network").
struct SlowStorageOptions {
  uint64_t median_ns = 0;  // 0: no emulation
  uint64_t p99_ns = 0;     // = median_ns: a constant latency
  uint64_t bytes_per_second = 0;  // 0: no cap
  // Reads served at once; later ones queue (a disk arm: 1). 0: no limit.
  uint32_t concurrency = 0;
  uint64_t seed = 1;
};

// "hdd": 4 ms median, 12 ms p99, 150 MB/s, one read at a time; "network":
// 1 ms median, 5 ms p99, 1.25 GB/s (10 Gb/s), no queue; "none". Throws
// InputError naming the presets for another name.
SlowStorageOptions SlowStoragePreset(const std::string& name);

// The DRAM a flash tier of these options sets aside from M, for tables of
// 4 KiB blocks (RocksDB's default).
uint64_t FlashTierDramBytes(const FlashTierOptions& options);

struct FlashTierStats {
  bool enabled = false;
  uint64_t capacity_bytes = 0;
  uint64_t dram_bytes = 0;          // index and buffers, taken from M
  uint64_t lookups = 0;             // secondary-cache lookups that reached the tier
  uint64_t flash_lookups = 0;       // of which looked on flash (not bypassed)
  uint64_t flash_hits = 0;
  uint64_t bypassed_absent = 0;     // the index lacked the key
  uint64_t bypassed_slow = 0;       // flash did not pay
  uint64_t inserts = 0;             // blocks offered (evicted from DRAM)
  uint64_t inserts_invalid = 0;     // refused: a table compacted away or deleted
  uint64_t inserts_present = 0;     // already on flash
  uint64_t inserts_slow = 0;        // skipped: flash did not pay
  uint64_t inserts_queue_full = 0;  // dropped: the write queue was full
  uint64_t inserts_written = 0;     // appended to a region
  uint64_t insert_ns = 0;           // the inserting threads' time, summed
  uint64_t bytes_written = 0;       // to flash
  uint64_t entries = 0;             // held
  uint64_t invalid_entries = 0;     // of which of deleted tables (IBOR's numerator)
  uint64_t dropped_entries = 0;     // removed when their table was deleted
  uint64_t mismatches = 0;          // entries that did not check out (misses)
  uint64_t read_errors = 0;
  uint64_t index_evictions = 0;
  uint64_t regions_reclaimed = 0;
  uint64_t mean_flash_hit_ns = 0;     // recent
  uint64_t mean_storage_read_ns = 0;  // recent, of the table files
  bool flash_pays = true;
  bool direct_io = false;
  bool failed = false;
  std::string failure;
};

// What the DBs of one budget share.
struct BudgetOptions {
  Budget budget = Budget::kEngine;
  // M. 0 (kernel budget only): this process's cgroup limit minus
  // controller.memory_reserve_bytes.
  uint64_t memory_bytes = 0;
  // true: the Controller sizes the caches (from controller.initial_ma_bytes).
  // false: a static split, M_a = static_ma_bytes.
  bool adaptive = true;
  // RocksDB 7.8 makes an 8 MiB block cache when none is given.
  uint64_t static_ma_bytes = 8ull << 20;
  ControllerConfig controller;  // memory_bytes is ignored
  // Engine budget: the secondary cache's compression. The default is the
  // table files' own (snappy), so a block takes about as much room there
  // as on disk, which is what the Controller's block model assumes.
  ::rocksdb::CompressionType secondary_compression = ::rocksdb::kSnappyCompression;
  // Engine budget: the secondary cache's buffers come from slabs of their
  // own, returned to the kernel as they empty, instead of the heap the
  // block cache's blocks live in (src/engines/rocksdb/slab_allocator.h says
  // why). false: RocksDB's default, malloc.
  bool secondary_slab_allocator = true;
  // Raise controller.sample_rate by powers of two until the table files of
  // the first DB opened hold this many sampled groups (as for LevelDB).
  uint32_t min_sampled_groups = 256;
  // Kernel budget: model the read-ahead of the device under the first DB
  // (its read_ahead_kb) instead of controller.max_readahead_pages.
  bool detect_readahead = true;
  // Kernel budget with M from the cgroup: measure the page cache's real
  // room every second (PageCacheRoomMonitor).
  bool track_page_cache_room = true;
  // Kernel budget: controller.app_cache_overhead.
  double kernel_app_cache_overhead = 0.25;
  // Engine budget: a flash tier below the compressed cache, and emulated
  // slow storage under every DB's table files.
  FlashTierOptions flash;
  SlowStorageOptions slow_storage;
};

struct Stats {
  Budget budget = Budget::kEngine;
  bool adaptive = false;
  uint64_t memory_bytes = 0;          // M (less the flash tier's DRAM)
  uint64_t ma_bytes = 0;    // M_a now
  uint64_t app_usage_bytes = 0;
  uint64_t second_tier_bytes = 0;     // engine: M - M_a; kernel: 0 (implicit)
  uint64_t lookups = 0;               // foreground block-cache lookups
  uint64_t app_hits = 0;              // primary hits
  uint64_t reads = 0;                 // misses served below the primary
  uint64_t second_tier_hits = 0;      // of which the second tier served
  uint64_t miss_ns = 0;               // summed time of those misses
  uint64_t unmapped_lookups = 0;      // hits of a file not yet seen read
  // Engine budget with secondary_slab_allocator: the memory the secondary
  // cache's slabs hold, what of it is handed out, and the buffers that
  // went to malloc instead (too large, or the slabs' address space full).
  uint64_t secondary_resident_bytes = 0;
  uint64_t secondary_allocated_bytes = 0;
  uint64_t secondary_malloc_fallbacks = 0;
  bool suspended = false;             // see SharedBudget::Suspend
  FlashTierStats flash;
  ControllerStats controller;         // adaptive only
};

// An open DB and its column families. Destroying it closes the DB.
class Db {
 public:
  virtual ~Db() = default;
  virtual ::rocksdb::DB* db() const = 0;
  // The handles of the column families given to Open, in order (empty if
  // none were given: the default family only).
  virtual const std::vector<::rocksdb::ColumnFamilyHandle*>& handles() const = 0;
  virtual Stats GetStats() const = 0;
  // SharedBudget::Suspend of this DB's budget (all its DBs).
  virtual void Suspend(bool suspended) = 0;
};

// One memory budget, its caches and its Controller.
class SharedBudget {
 public:
  // Makes the caches and the Controller. Returns InvalidArgument (one line
  // that says what to change) for a budget below kMinMemoryBytes, 0 with
  // the engine budget, a static M_a above M, or a bad controller config.
  static ::rocksdb::Status Create(const BudgetOptions& options,
                                  std::shared_ptr<SharedBudget>* budget);
  virtual ~SharedBudget() = default;

  // Opens the DB at `path` in this budget. `engine` as for rocksdb::DB::Open
  // (env and, with the engine budget, use_direct_reads are set here);
  // `table` is used for every column family, with its block_cache set
  // here. `column_families` as for the column-family DB::Open; empty: the
  // default family only. The budget must outlive the DB.
  virtual ::rocksdb::Status Open(
      const ::rocksdb::Options& engine, const ::rocksdb::BlockBasedTableOptions& table,
      const std::string& path,
      const std::vector<::rocksdb::ColumnFamilyDescriptor>& column_families,
      std::unique_ptr<Db>* db) = 0;

  // Counters and the Controller's state, summed over the budget's DBs.
  virtual Stats GetStats() const = 0;
  // Static budgets: sets M_a (and, engine budget, M - M_a below it).
  // REQUIRES: !adaptive; bytes <= M.
  virtual void SetAppCacheCapacity(uint64_t bytes) = 0;
  // The flash tier's size on flash, online (its DRAM set aside at Create
  // does not change). NotSupported without a flash tier; InvalidArgument
  // (one line) for a size below two regions or above what its index
  // addresses.
  virtual ::rocksdb::Status SetFlashCapacity(uint64_t bytes) = 0;
  // Adaptive: while suspended, block lookups and reads are not reported to
  // the Controller, so M_a stays as it is and no round starts, and each
  // access costs what it costs in a static budget. For work whose accesses
  // should not steer the split (a backup's full scan), and to measure what
  // Symbiosis costs (`rocksdb_bench overhead`). Table files opened and
  // deleted are still reported. Static: no effect.
  virtual void Suspend(bool suspended) = 0;
  // For tests: how many secondary-cache keys (engine budget) the table
  // files deleted so far had, and how many of them the secondary cache
  // still holds (counted in it); 0 for the kernel budget.
  virtual size_t DeletedTableKeys() = 0;
  virtual size_t DeletedTableEntries() = 0;
};

struct Options {
  ::rocksdb::Options engine;
  ::rocksdb::BlockBasedTableOptions table;
  BudgetOptions budget;
};

// Opens one DB in a budget of its own.
::rocksdb::Status Open(const Options& options, const std::string& path, std::unique_ptr<Db>* db);

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ROCKSDB_H_
