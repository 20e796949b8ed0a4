// The engine-agnostic half of the benchmark drivers behind `symbiosis bench
// <engine>` (leveldb_bench, rocksdb_bench, wiredtiger_bench): the command
// line (flags.h), the DB's layout file (db_layout.h), the requests and
// their checks (requests.h), the load, run and overhead commands (one file
// each), latency histograms (histogram.h), JSON lines (json_lines.h) and
// the memory cgroup of the kernel budget (bench_cgroup.h). An engine
// supplies a BenchEngine: how to write a DB, how to open it under a budget,
// and its counters.
//
//   <engine>_bench load --db DIR --data-size SIZE [--value-size 1000]
//                       [--alpha 0.5] [--seed 1]
//   <engine>_bench run  --db DIR --memory SIZE --config CONFIG
//                       [--workload SPEC | --phases "SPEC@SIZE*OPS;..."]
//                       [--duration 30s | --ops N] [--threads 4]
//                       [--interval 1s] [--warmup 0] [--overwrite 0]
//                       [--budget B] [--allow-fallback]
//                       [--device-latency 0us] [--reserve 32MiB] [--seed 1]
//                       [--app-cache-overhead F] [--progress]
//   <engine>_bench overhead --db DIR --memory SIZE [--workload uniform]
//                       [--threads 4] [--pairs 400] [--slice 250ms]
//                       [--warmup 30s] [--budget B] [--reserve 32MiB]
//                       [--no-cgroup] [--seed 1] [--app-cache-overhead F]
//                       [--progress]
//   <engine>_bench limits           the engine's limits as one JSON line
//   <engine>_bench COMMAND --help   the command's flags, each with its default
//
// load writes keys 0..N-1 ("user" + 12 digits) with values of --value-size
// bytes whose first alpha share is random and the rest repeats it, so that
// the engine's compressor compresses them to about alpha; it builds the DB
// in DIR.partial and renames it, so a failed load leaves nothing
// half-written, and records the layout (and the measured alpha) in
// DIR/symbiosis-bench.json.
//
// run runs one configuration:
//   static-default  M_a = the engine's default block cache, never changed
//   static-max      M_a = M
//   static-<i>      M_a = i * M / 8, i = 0..8 (the sweep)
//   symbiosis       the Controller sizes M_a online
// M is --memory, the caches' budget. A budget that needs a memory cgroup
// (kernel) runs in a child cgroup of M + --reserve bytes, created under this
// process's cgroup and removed on exit, error or Ctrl-C, after the DB's
// pages are dropped from the page cache so that every configuration starts
// cold.
//
// overhead measures Symbiosis's cost in Stable: DIR opened with Symbiosis
// and, once it is Stable, the readers run in slices of --slice alternating
// between Symbiosis reporting and Symbiosis suspended (the static
// configuration's path at the same M_a), --pairs pairs (overhead.cc says
// why). Output: a {"type":"pair",...} line per pair and an
// {"type":"overhead_summary",...} line: the reporting slices' ops/s over
// the suspended ones', the median pair ratio and its ~95% interval.
//
// Output: one JSON object per line on stdout, {"type":"interval",...} every
// --interval and {"type":"summary",...} at the end (docs/bench-leveldb.md
// has the schema); with --progress a status line on stderr. Errors: one
// line on stderr, exit status 2 for bad input, 1 for a failed run.
//
// A run with any failed request is a failed run: an engine error, a key
// the load wrote that a Get does not find, or a value that is not the one
// the load (or an overwrite) wrote (its length, and its head repeated after
// it). Its summary says "failed": true with the count and the first
// error, and reports no throughput or latency; the driver prints the count
// and the first error on stderr and exits 1 (docs/decisions/failed-runs.md).
//
// limits prints {"engine", "budgets", "min_memory_bytes", "key_bytes",
// "max_value_bytes"}: what `symbiosis bench` checks before it loads a DB.

#ifndef SYMBIOSIS_TOOLS_DRIVER_DRIVER_H_
#define SYMBIOSIS_TOOLS_DRIVER_DRIVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "driver/flags.h"
#include "symbiosis/controller.h"

namespace symbiosis::bench {

// Cumulative counters an engine reports; the driver takes differences.
struct EngineStats {
  uint64_t memory_bytes = 0;        // M as the engine uses it
  uint64_t ma_bytes = 0;  // M_a now
  uint64_t app_usage_bytes = 0;
  uint64_t lookups = 0;             // foreground application-cache lookups
  uint64_t app_hits = 0;            // of which hits
  uint64_t reads = 0;               // misses that read a block
  uint64_t second_tier_hits = 0;    // of which the second tier served
  std::optional<ControllerStats> controller;  // Symbiosis only
  // An engine's own counters since open, by name (the summary's and each
  // interval line's "engine_counters").
  std::vector<std::pair<std::string, uint64_t>> engine_counters;
};

// An engine plugin's Stats (symbiosis::leveldb::Stats, ...::rocksdb::Stats:
// the same counters under the same names) as the driver's.
template <typename PluginStats>
EngineStats FromPluginStats(const PluginStats& s) {
  EngineStats out;
  out.memory_bytes = s.memory_bytes;
  out.ma_bytes = s.ma_bytes;
  out.app_usage_bytes = s.app_usage_bytes;
  out.lookups = s.lookups;
  out.app_hits = s.app_hits;
  out.reads = s.reads;
  out.second_tier_hits = s.second_tier_hits;
  if (s.adaptive) out.controller = s.controller;
  return out;
}

// An open DB. Called from several reader threads at once.
class BenchDb {
 public:
  virtual ~BenchDb() = default;
  // Each returns false and says why in `error` (one line, the engine's own
  // words) when the request failed. A Get of a key that is not there
  // fails: the driver asks only for keys the load wrote.
  virtual bool Get(const std::string& key, std::string* value, std::string* error) = 0;
  virtual bool Put(const std::string& key, const std::string& value, std::string* error) = 0;
  // Reads up to `count` entries from `key` on; fewer at the end of the keys.
  virtual bool Scan(const std::string& key, uint32_t count, std::string* error) = 0;
  virtual EngineStats Stats() const = 0;
  // Symbiosis: stops (true) or resumes reporting accesses to the
  // Controller. false if the engine's plugin cannot.
  virtual bool Suspend(bool /*suspended*/) { return false; }
};

// Writes a new DB during `load`.
class BenchLoader {
 public:
  virtual ~BenchLoader() = default;
  // Writes the pairs as one batch; false and `error` on failure.
  virtual bool Write(const std::vector<std::pair<std::string, std::string>>& pairs,
                     std::string* error) = 0;
  // Compacts everything into the last level and closes the DB.
  virtual bool Finish(std::string* error) = 0;
};

// What a run asks of an engine.
struct OpenRequest {
  std::string path;
  std::string budget;      // one of BenchEngine::budgets()
  uint64_t memory = 0;     // M
  uint64_t reserve = 0;    // a cgroup budget's room beyond M
  bool in_cgroup = false;  // the run is inside a child cgroup of M + reserve
  std::optional<uint64_t> static_ma_bytes;  // nullopt: Symbiosis
  uint64_t device_latency_ns = 0;            // an emulated device's latency
  std::optional<double> app_cache_overhead;  // unset: the engine's default
  Flags engine_flags;  // the values of BenchEngine::RunFlags given
};

class BenchEngine {
 public:
  virtual ~BenchEngine() = default;
  virtual std::string name() const = 0;  // "leveldb": the binary is <name>_bench
  // The budgets --budget accepts; the first is the default.
  virtual std::vector<std::string> budgets() const = 0;
  // Budgets that need a memory cgroup, and what a run uses instead when no
  // cgroup can be made and --allow-fallback is given ("" = none).
  virtual bool NeedsCgroup(const std::string& budget) const = 0;
  virtual std::string FallbackBudget() const = 0;
  // The smallest M a run accepts, and static-default's M_a under M.
  virtual uint64_t min_memory_bytes() const = 0;
  virtual uint64_t default_ma_bytes(uint64_t memory) const = 0;
  // Table files' total size under `path`: D_c.
  virtual uint64_t TableBytes(const std::string& path) const = 0;
  // Flags of `run` that only this engine has (OpenRequest::engine_flags),
  // and a one-line error for a bad value among them ("" if all are good).
  virtual std::vector<FlagSpec> RunFlags() const { return {}; }
  virtual std::string CheckRunFlags(const Flags& /*flags*/) const { return ""; }

  virtual std::unique_ptr<BenchLoader> Create(const std::string& path, std::string* error) = 0;
  // nullptr and a one-line `error` if the DB cannot be opened.
  virtual std::unique_ptr<BenchDb> Open(const OpenRequest& request, std::string* error) = 0;
};

// The whole driver: parses argv (load, run, overhead or limits) and does it.
// Returns the exit status.
int DriverMain(BenchEngine& engine, int argc, char** argv);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_DRIVER_H_
