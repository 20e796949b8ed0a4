// Offline replay: runs the real Controller over a block trace, with the
// engine's hit/miss outcomes produced by the simulator's two-level models,
// so users see what Symbiosis would do with their workload (each round's
// trigger, candidates, predictions and decision) without an engine.
//
// The simulated engine is the offline study's inclusive hierarchy: an
// exact LRU application cache of M_a bytes (uncompressed sizes) over a
// kernel model of M - M_a bytes (on-disk sizes) that every application
// miss reads through. The Controller's Resizer resizes both, shrinking
// first. Each read is reported with a service time of C_a, or C_a + C_k
// when the kernel missed, so the Controller's online cost measurement
// sees the costs the replay was given.

#ifndef SYMBIOSIS_REPLAY_H_
#define SYMBIOSIS_REPLAY_H_

#include <cstdint>
#include <vector>

#include "symbiosis/block_trace.h"
#include "symbiosis/controller.h"
#include "symbiosis/cost_model.h"
#include "symbiosis/kernel_cache.h"

namespace symbiosis {

struct ReplayOptions {
  // The Controller's configuration; memory_bytes must be set (> 0).
  // model_cpu_load is ignored (off): a replay has no engine threads.
  ControllerConfig controller;
  // The simulated engine: its true miss costs (microseconds) and kernel.
  MissCosts costs;
  KernelModelKind kernel = KernelModelKind::kLinux;
  uint32_t max_readahead_pages = 32;
  uint64_t timeline_accesses = 100'000;  // one timeline point per this many
  bool progress = false;
};

struct ReplayPoint {
  uint64_t end_access = 0;
  double hit_app = 0;
  double hit_second_tier = 0;  // among application misses
  double latency = 0;     // L_e with the replay's true costs
  uint64_t ma_bytes = 0;  // M_a at the end of the interval
  ControllerState state = ControllerState::kStable;
};

struct ReplayResult {
  ControllerStats stats;  // at the end, rounds included
  std::vector<ReplayPoint> timeline;
  uint64_t final_ma_bytes = 0;
  double mean_latency = 0;  // over the whole replay
};

// Throws InputError for a bad trace or options.
ReplayResult RunReplay(const BlockTrace& trace, const ReplayOptions& options);

}  // namespace symbiosis

#endif  // SYMBIOSIS_REPLAY_H_
