// Controller: splits a memory budget M between an engine's application
// cache (M_a) and the cache below it (the kernel page cache, or the
// engine's compressed cache: M_k = M - M_a), online (paper §4).
//
// An engine adapter reports events; the Controller answers with resizes.
//
//   Stable    only counters run. Every window of accesses gives a measured
//             L_e = (1 - H_a) (C_a + (1 - H_k) C_k). While the caches warm
//             after a resize the reference follows L_e down; then it is
//             frozen, and windows that differ from it by more than the
//             change threshold and their own spread start a round. If L_e
//             rose (the data set probably grew) M_a first shrinks to the
//             engine's default, the reset policy: the kernel cache copes
//             better with a grown set.
//             The first frozen reference after a round that left M_a where
//             it measured it is compared with that measure: a change that
//             came during the round or its trials starts a round too.
//             With no application cache, where L_e cannot see the working
//             set shrink, sampled accesses feed a distinct count
//             (working_set_probe.h; it runs from the end of the last
//             round on), and a count a quarter below its first starts a
//             round.
//   Adapting  sampled accesses feed the ghosts (see ghost_sim.h): one
//             application ghost answers every candidate M_a by stack
//             distance; one kernel ghost is shrunk candidate by candidate,
//             in increasing M_a, and warmed before each is measured. The
//             candidate nearest the current M_a is moved onto it, so the
//             current configuration is simulated too and predictions are
//             compared with it: model bias cancels. Candidates are ranked
//             by A, the throughput bound that knows when threads
//             outnumber CPUs (cost_model.h), once the process's CPU load
//             is measured, else by L_e. The best candidate is
//             adopted only if it beats the simulated current configuration
//             by the gain threshold, and only if the simulated current
//             configuration agrees with what was measured (the guard: a
//             kernel behaviour the model lacks shows up as disagreement;
//             then the far end of the range is tried instead).
//             A round is abandoned if L_e rises during it (two windows in
//             a row by default) and restarted, with a reset only if L_e
//             rose above the Stable reference from before the round;
//             after several abandoned rounds in a row the Controller
//             stops simulating for a while (churn), and so it does after
//             several rounds in a row that could not judge (the model
//             off, too few samples).
//   Trying    after a round that kept M_a, the candidates the model cannot
//             rule out (their scores within the trial band) run for real,
//             fewest predicted device reads first, at most max_trials: the
//             busy thread time and the wall time per access are measured
//             at the current M_a, at each candidate's once the caches
//             settled (their device reads stopped falling), and at the
//             current M_a again; a candidate stays only if it measured the
//             trial gain less of one than the current M_a's time
//             interpolated to its own (the machine's speed drifts
//             meanwhile), beyond the spread of the measures' windows (the
//             engine's own cycles), and not the trial gain more of the
//             other; one that gained the trusted gain on the first measure
//             stays at once. The model's costs are measured in the current
//             state, and some are not per event: device reads also slow the
//             hits and the CPU around them (interrupts, reclaim), which a
//             layout without device reads does not pay. A winner whose predicted gain is
//             below the trusted gain is tried the same way, first, rather
//             than adopted, and so is a kept round's winner that predicts
//             at least the trial gain.
//   Verifying after a round that moved M_a to a split nothing measured
//             against the one before the round (an adoption on the model,
//             a reset's split kept): the new split is measured once the
//             caches settle and compared with the old one's measure; if it
//             is slower by more than the trial gain, the old split is
//             measured again in between (new, old, new) and the move is
//             undone if the old one is the trial gain faster. A move
//             verified the trial gain faster is followed by a trial of
//             the end of its direction (the largest candidate after a
//             grow, the smallest after a shrink). The model chooses
//             where to look; measurements decide what stays.
//   Settling  after a resize, waits for the caches to fill before the next
//             reference is taken.
//
// Resizes are gradual: M_a moves by at most a step per interval, and the
// order of the two calls keeps M_a + M_k <= M at every moment.
//
// Threads: the Record* calls may be made concurrently from any number of
// threads. An unsampled access costs a relaxed load, a hash of its group
// while Adapting or probing (Trying, Settling, and Stable at M_a = 0), a
// branch and relaxed counter increments; one access in about a thousand
// (per thread) moves the shared clock, and the thread that ends a window
// runs the state machine. The Resizer is called from an
// event-recording thread with no Controller lock held, one call at a time.

#ifndef SYMBIOSIS_CONTROLLER_H_
#define SYMBIOSIS_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/controller_config.h"
#include "symbiosis/controller_stats.h"
#include "symbiosis/cost_model.h"
#include "symbiosis/kernel_cache.h"
#include "symbiosis/sched_times.h"

namespace symbiosis {

// Where the Controller's decisions go. Capacities are in bytes.
class Resizer {
 public:
  virtual ~Resizer() = default;
  virtual void SetAppCacheCapacity(uint64_t bytes) = 0;
  // Only called with ControllerConfig::second_tier_owned.
  virtual void SetSecondTierCapacity(uint64_t bytes) {}
};

// In Stable the miss costs only need to stay current for the next round,
// and the two schedstat reads around a sampled device read (1.1 us each)
// were most of what Symbiosis cost in Stable: LevelDB with no block cache
// ran 2.9% slower than its static path with them, 0.7-1.35% with eight
// times fewer (docs/decisions/miss-cost-timing.md).
constexpr uint32_t kStableSchedSampleSlowdown = 8;

class Controller {
 public:
  // Applies config.initial_ma_bytes through `resizer` (may be null: then
  // decisions are only visible in Stats()). Throws InputError for a bad
  // config and CgroupError when M must come from a cgroup that has none.
  // REQUIRES: `resizer` outlives the Controller.
  Controller(const ControllerConfig& config, Resizer* resizer);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // One application-cache lookup of `block` and whether it hit.
  void RecordAppAccess(const Block& block, bool hit);

  // An application-cache lookup whose block the engine cannot name
  // cheaply (WiredTiger's hits): counted in the measured hit ratio, not
  // simulated. Use it only while !simulating(), or when the block is not
  // known at all; a round's ghosts need every sampled block.
  void RecordAppAccessUnidentified(bool hit);
  // Whether a round is simulating now (a relaxed load; it may change at
  // the next call).
  bool simulating() const;
  // How many times fewer reads the engine plugins should time with the
  // scheduler's times (SampledThreadSchedTimes) now: 1 in rounds,
  // kStableSchedSampleSlowdown in Stable. A relaxed load.
  uint32_t sched_sample_slowdown() const;

  // One read of a block's on-disk bytes after an application-cache miss:
  // whether the kernel (or compressed) cache held all of them, and how
  // long serving the miss took (read, checksum, decompression), in
  // nanoseconds; 0 if not timed. `sched`: for a timed device read, the
  // thread's scheduler times over the same span (ThisThreadSchedTimes
  // before and after), which split it into CPU, run-queue wait and device
  // wait.
  void RecordRead(const Block& block, bool second_tier_hit, uint64_t service_ns = 0,
                  std::optional<SchedTimes> sched = std::nullopt);
  // A read as above whose block the engine did not name (RocksDB's
  // compressed-cache hits outside a round): counted and timed, not
  // simulated. The same rule as RecordAppAccessUnidentified's applies.
  void RecordReadUnidentified(bool second_tier_hit, uint64_t service_ns = 0,
                              std::optional<SchedTimes> sched = std::nullopt);

  // The second tier stored a block (RocksDB's compressed cache compressed
  // one the block cache evicted) in `service_ns` on a request's thread.
  // The time is not in any RecordRead's service_ns: the cost model counts
  // stores apart (C_s, cost_model.h), as their number depends on the split.
  void RecordSecondTierStore(uint64_t service_ns);

  // The file was deleted: the kernel ghost forgets its pages (the page
  // cache drops them); its blocks age out of the application ghost, as
  // they do out of the engine's block cache.
  void RecordFileDeleted(uint64_t file_id);

  // The file's size in bytes (call when a table file is opened; sizes of
  // immutable files never change). The kernel ghost's read-ahead stops at
  // the end of the file, as the page cache's does; without sizes a large
  // read-ahead window (read_ahead_kb) makes it underestimate H_k.
  void RecordFileSize(uint64_t file_id, uint64_t bytes);

  // Where the budget is the kernel's, the page cache holds not M - M_a but
  // M - M_a + `bytes`: the reserve kept out of M, less the engine's memory
  // outside its cache (heap, memtables, allocator fragmentation), which
  // the caller measures (e.g. cgroup usage - file - block cache usage).
  // The kernel ghost is sized so from the next candidate on. Default 0.
  void SetKernelCacheOffset(int64_t bytes);

  // The application cache charges a block read from disk `bytes` more than
  // the mem_size its accesses report, which is what it charges the block
  // when the second tier serves it (RocksDB: its memory usage against its
  // contents). The ghosts charge so from the next sampled access. Default 0.
  void SetReadChargeOverhead(uint32_t bytes);

  ControllerStats Stats() const;
  uint64_t memory_bytes() const;
  const ControllerConfig& config() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_CONTROLLER_H_
