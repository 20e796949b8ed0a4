// Symbiosis for LevelDB: open an unmodified LevelDB (Debian's 1.23) whose
// block cache and page cache share one memory budget M, split online.
//
//   symbiosis::leveldb::Options options;
//   options.engine.create_if_missing = true;
//   options.memory_bytes = 256 << 20;             // or 0: the cgroup's limit
//   std::unique_ptr<symbiosis::leveldb::Db> db;
//   leveldb::Status s = symbiosis::leveldb::Open(options, "/data/db", &db);
//   db->db()->Get(leveldb::ReadOptions(), key, &value);
//   symbiosis::leveldb::Stats stats = db->GetStats();
//
// Only public extension points are used: Options::block_cache gets a
// resizable LRU cache that reports each data-block lookup, Options::env a
// wrapper that reads table files with pread (or O_DIRECT) and classifies
// each read as a second-tier hit or miss exactly. Nothing the engine
// stores or returns changes.
//
// Budgets:
//   kKernel    the kernel page cache is the second tier. M is what the
//              process may use (run it in a memory cgroup of that size, as
//              `symbiosis bench leveldb` does); M_k is what the page cache
//              gets of it, implicitly.
//   kEmulated  table reads bypass the page cache and go through a
//              user-space page cache of M - M_a bytes (see
//              emulated_page_cache.h), with optional injected device
//              latency. Needs no root; memory_bytes must be given.

#ifndef SYMBIOSIS_LEVELDB_H_
#define SYMBIOSIS_LEVELDB_H_

#include <leveldb/db.h>
#include <leveldb/options.h>
#include <leveldb/status.h>

#include <cstdint>
#include <memory>
#include <string>

#include "symbiosis/controller.h"

namespace symbiosis::leveldb {

enum class Budget { kKernel, kEmulated };
const char* BudgetName(Budget budget);  // "kernel", "emulated"

// The smallest budget Open accepts: LevelDB needs memory for memtables,
// table metadata and its cache.
constexpr uint64_t kMinMemoryBytes = 32ull << 20;

struct Options {
  // The engine's options. block_cache and env are set by Open (env wraps
  // engine.env when given, else Env::Default()); leave them null.
  ::leveldb::Options engine;

  Budget budget = Budget::kKernel;
  // M. 0 (kernel budget only): this process's cgroup limit minus
  // controller.memory_reserve_bytes.
  uint64_t memory_bytes = 0;

  // true: the Controller sizes the block cache (starting from
  // controller.initial_ma_bytes). false: a static split, M_a =
  // static_ma_bytes.
  bool adaptive = true;
  uint64_t static_ma_bytes = 8ull << 20;  // LevelDB's default cache size
  ControllerConfig controller;            // memory_bytes is ignored
  // Kernel budget: model the read-ahead of the device under the DB path
  // (its read_ahead_kb) instead of controller.max_readahead_pages.
  bool detect_readahead = true;
  // Raise controller.sample_rate, by powers of two, until the table files
  // present at Open hold at least this many sampled groups (of
  // controller.group_blocks * block_disk_bytes bytes each); 0, or a DB
  // without table files yet: keep it.
  // At R = 1/64 a DB of a few hundred MiB has a few dozen sampled groups,
  // too few for a skewed workload's hot spot (bench/leveldb.md).
  uint32_t min_sampled_groups = 256;
  // Kernel budget with M from the cgroup: measure every second how much
  // the page cache really holds beyond M - M_a (the reserve less the
  // engine's other memory) and size the kernel ghost accordingly.
  bool track_page_cache_room = true;
  // Kernel budget: controller.app_cache_overhead (which Open sets; 0 in the
  // emulated budget). LevelDB's memory besides its block cache grows with
  // the cache, most where the cache churns hardest, which is where the
  // page-cache cliff lies: from 8 to 32 MiB of cache by 0.18-0.25 of the
  // growth, to 40 MiB by 0.25-0.35, in the 0.8 cells of bench/leveldb.md's
  // grid (0.10 median over all cells; per-block allocations and free heap
  // not yet trimmed). The cliff is costly and a step below it cheap, so
  // the fraction is taken from the cliff's cells
  // (docs/decisions/app-cache-overhead.md).
  double kernel_app_cache_overhead = 0.25;

  // Emulated budget only.
  uint64_t device_latency_ns = 0;   // injected per read that misses
  bool emulated_linux_model = true;  // false: a page LRU without read-ahead
  uint32_t emulated_max_readahead_pages = 32;
};

struct Stats {
  Budget budget = Budget::kKernel;
  bool adaptive = false;
  uint64_t memory_bytes = 0;       // M
  uint64_t ma_bytes = 0;   // M_a now
  uint64_t app_usage_bytes = 0;
  uint64_t second_tier_bytes = 0;  // emulated: M - M_a; kernel: 0 (implicit)
  uint64_t lookups = 0;            // foreground block-cache lookups
  uint64_t app_hits = 0;
  uint64_t reads = 0;              // block reads after a miss
  uint64_t second_tier_hits = 0;   // of which served from memory
  uint64_t miss_ns = 0;            // summed time of those misses
  bool suspended = false;          // see Db::Suspend
  ControllerStats controller;      // adaptive only
};

// An open DB and what Symbiosis attached to it. Destroying it closes the
// DB first.
class Db {
 public:
  virtual ~Db() = default;
  virtual ::leveldb::DB* db() const = 0;
  virtual Stats GetStats() const = 0;
  // Static configurations: sets M_a (and, emulated, M_k = M - M_a).
  // REQUIRES: !adaptive; bytes <= M.
  virtual void SetAppCacheCapacity(uint64_t bytes) = 0;
  // Adaptive: while suspended, block lookups and reads are not reported to
  // the Controller, so M_a stays as it is and no round starts, and each
  // access costs what it costs in a static configuration. For work whose
  // accesses should not steer the split (a backup's full scan, a bulk
  // check), and to measure what Symbiosis costs (`leveldb_bench overhead`).
  // Table files opened and deleted are still reported. Static: no effect.
  virtual void Suspend(bool suspended) = 0;
};

// Opens the DB at `path`. Returns InvalidArgument for a bad budget (below
// kMinMemoryBytes, 0 with the emulated budget, a static M_a above M) or
// controller config, and whatever LevelDB returns (e.g. InvalidArgument
// "does not exist" for a path that holds no DB when create_if_missing is
// false). Every message is one line that says what to change.
::leveldb::Status Open(const Options& options, const std::string& path, std::unique_ptr<Db>* db);

}  // namespace symbiosis::leveldb

#endif  // SYMBIOSIS_LEVELDB_H_
