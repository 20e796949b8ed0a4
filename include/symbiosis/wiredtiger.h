// Symbiosis for WiredTiger: open an unmodified WiredTiger (Debian's 3.2.1)
// whose cache and the kernel page cache share one memory budget M, split
// online.
//
//   symbiosis::wiredtiger::Options options;
//   options.engine_config = "create";
//   options.extensions = {symbiosis::wiredtiger::kSnappyExtension};
//   options.memory_bytes = 256 << 20;              // or 0: the cgroup's limit
//   std::unique_ptr<symbiosis::wiredtiger::Db> db;
//   symbiosis::wiredtiger::Status s = symbiosis::wiredtiger::Open(options, "/data/wt", &db);
//   WT_SESSION* session;  ... db->connection()->open_session(...)
//   {
//     symbiosis::wiredtiger::AccessScope scope(*db, "table:t", key);
//     cursor->set_key(cursor, key.c_str());
//     cursor->search(cursor);
//   }
//
// Only public interfaces are used: the file system is replaced by a
// POSIX pass-through (WT_CONNECTION::set_file_system from an early-loaded
// extension that lives in this library; executables must export it:
// link with -rdynamic) that reads with pread and tells page-cache hits
// from device reads exactly; the cache is resized with
// WT_CONNECTION::reconfigure("cache_size=..."). Nothing WiredTiger stores
// or returns changes.
//
// WiredTiger has no per-lookup hook, so the application marks each read
// operation with an AccessScope; see engines/wiredtiger/adapter.h for how
// an operation becomes a page access, and docs/wiredtiger.md for the
// accuracy against WiredTiger's own statistics. Unmarked operations run
// as usual and are not part of the workload Symbiosis sizes for.
//
// The budget is the kernel's: the page cache is the second tier. M is
// what the process may use (run it in a memory cgroup of that size, as
// `symbiosis bench wiredtiger` does).

#ifndef SYMBIOSIS_WIREDTIGER_H_
#define SYMBIOSIS_WIREDTIGER_H_

#include <wiredtiger.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "symbiosis/controller.h"

namespace symbiosis::wiredtiger {

// Debian's compressor extensions (libwiredtiger-dev).
inline constexpr const char* kSnappyExtension = "/usr/lib/x86_64-linux-gnu/libwiredtiger_snappy.so";
inline constexpr const char* kZlibExtension = "/usr/lib/x86_64-linux-gnu/libwiredtiger_zlib.so";

// The smallest budget Open accepts.
constexpr uint64_t kMinMemoryBytes = 32ull << 20;
// WiredTiger's smallest cache_size.
constexpr uint64_t kMinCacheBytes = 1ull << 20;

struct Status {
  int code = 0;         // 0, or a WiredTiger / errno error code
  std::string message;  // one line: what is wrong and what to do
  bool ok() const { return code == 0; }
};

struct Options {
  // wiredtiger_open's configuration, e.g. "create" or
  // "create,eviction=(threads_max=1)". Open adds cache_size and the
  // extensions; do not set them here.
  std::string engine_config;
  // Shared-library extensions to load (compressors).
  std::vector<std::string> extensions;

  // M. 0: this process's cgroup limit minus controller.memory_reserve_bytes.
  uint64_t memory_bytes = 0;
  // true: the Controller sizes the cache between the floor and M.
  // false: a static split, cache_size = static_ma_bytes.
  bool adaptive = true;
  uint64_t static_ma_bytes = 0;  // 0: M / 4, as the paper's default
  // The floor of the candidates, as a fraction of M: WiredTiger slows
  // down sharply when its cache is small (the paper searched M_a >= M/4).
  double min_app_fraction = 0.25;
  ControllerConfig controller;  // memory_bytes and min_app_fraction are ignored
  // Model the read-ahead of the device under the home directory instead
  // of controller.max_readahead_pages.
  bool detect_readahead = true;
  // Start from C_k and C_k_cpu measured at Open by a few direct reads of
  // the largest table (device_read_cost.h) instead of controller.costs'.
  // Where the page cache holds every table at first, no device read
  // measures them until M_a has grown, and the first round would rank by
  // static costs (docs/decisions/engine-constants.md).
  bool measure_device_read_cost = true;
  // As symbiosis::leveldb::Options::min_sampled_groups, over the data files
  // present at Open.
  uint32_t min_sampled_groups = 256;
  // The share of cache_size WiredTiger keeps filled: its eviction_target
  // (80% by default). The application ghost charges each page its
  // in-memory size over this, so that a ghost of M_a holds what the cache
  // does; docs/wiredtiger.md measures the fit.
  double cache_fill = 0.8;
  // controller.app_cache_overhead (which Open sets). The memory cgroup
  // shows the process growing 0.98 bytes per byte of cache_size under
  // jemalloc and about 1.06 under glibc, though WiredTiger fills only
  // 80-95% of the cache (its page structures and the allocator take the
  // rest): 0. At -0.15 the kernel ghost gave the page cache 3 MiB too much
  // room beside a 52 MiB cache and the Controller chose the page cache's
  // cliff; at 0.3 it stopped a step short of M where M was best
  // (docs/decisions/app-cache-overhead.md).
  double kernel_app_cache_overhead = 0;
};

struct Stats {
  bool adaptive = false;
  uint64_t memory_bytes = 0;        // M
  uint64_t ma_bytes = 0;  // cache_size now
  uint64_t app_usage_bytes = 0;     // WiredTiger's bytes in the cache
  uint64_t lookups = 0;             // marked operations
  uint64_t app_hits = 0;            // of which without a leaf page read
  uint64_t reads = 0;               // leaf page reads in marked operations
  uint64_t second_tier_hits = 0;    // of which the page cache held every byte
  uint64_t miss_ns = 0;
  uint64_t internal_reads = 0;      // internal pages read in marked operations
  uint64_t other_reads = 0;         // data-file reads outside them
  uint64_t guessed_hits = 0;        // simulated hits placed by a guess
  uint64_t unidentified_hits = 0;   // simulated hits with no page known
  uint64_t indexed_pages = 0;       // leaf pages whose key range is known
  // The index's accuracy, checked on every miss before it learns from it:
  // the page it would have named for the key against the page read.
  uint64_t index_answers = 0;        // misses the index had a page for
  uint64_t index_wrong = 0;          // of which another page than the one read
  uint64_t index_guesses = 0;        // of the answers, guesses
  uint64_t index_guesses_wrong = 0;  // of which another page
  // WiredTiger's own counters (connection statistics, fast).
  uint64_t engine_pages_requested = 0;
  uint64_t engine_pages_read = 0;
  // Eviction workers active now: WiredTiger tunes their count between its
  // eviction=(threads_min, threads_max), and with one or two the cache
  // holds more than with six (the bench fixes four:
  // docs/decisions/engine-constants.md).
  uint64_t engine_eviction_workers = 0;
  bool suspended = false;      // see Db::Suspend
  ControllerStats controller;  // adaptive only
};

// An open connection and what Symbiosis attached to it. Destroying it
// closes the connection first (which closes its sessions).
class Db {
 public:
  virtual ~Db() = default;
  virtual WT_CONNECTION* connection() const = 0;
  virtual Stats GetStats() const = 0;
  // Static configurations: sets cache_size. REQUIRES: !adaptive;
  // kMinCacheBytes <= bytes <= M.
  virtual void SetAppCacheCapacity(uint64_t bytes) = 0;
  // Adaptive: while suspended, marked operations are counted but not
  // reported to the Controller, so cache_size stays as it is and no round
  // starts, and each operation costs what it costs in a static
  // configuration. For work whose reads should not steer the split (a
  // backup's scan), and to measure what Symbiosis costs
  // (`wiredtiger_bench overhead`). Files opened and deleted are still
  // reported. Static: no effect.
  virtual void Suspend(bool suspended) = 0;

 private:
  friend class AccessScope;
  virtual void BeginAccess(std::string_view uri, std::string_view key) const = 0;
  virtual void EndAccess() const = 0;
};

// Marks one read operation (a cursor search, search_near, or the first
// next/prev after one) on `key` of `uri` ("table:NAME", a simple table
// whose data lives in NAME.wt, or "file:NAME.wt") on the calling thread.
// REQUIRES: `key` holds the key's bytes as the table orders them (key_format
// S or u, the default collator) and outlives the scope; scopes do not nest.
class AccessScope {
 public:
  AccessScope(const Db& db, std::string_view uri, std::string_view key) : db_(db) {
    db_.BeginAccess(uri, key);
  }
  ~AccessScope() { db_.EndAccess(); }
  AccessScope(const AccessScope&) = delete;
  AccessScope& operator=(const AccessScope&) = delete;

 private:
  const Db& db_;
};

// Opens the database in `home`. Errors: EINVAL for a bad budget (below
// kMinMemoryBytes, a static cache above M or below kMinCacheBytes), a bad
// controller config, or an engine_config that sets cache_size or
// extensions; whatever wiredtiger_open returns otherwise (e.g. ENOENT for
// a home that holds no database without "create"). Every message is one
// line that says what to change.
Status Open(const Options& options, const std::string& home, std::unique_ptr<Db>* db);

}  // namespace symbiosis::wiredtiger

#endif  // SYMBIOSIS_WIREDTIGER_H_
