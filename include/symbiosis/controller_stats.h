// What the Controller reports (Controller::Stats): its state, the measured
// and predicted figures, and every round with its candidates, trials and
// verification; ToJson for tools.

#ifndef SYMBIOSIS_CONTROLLER_STATS_H_
#define SYMBIOSIS_CONTROLLER_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "symbiosis/cost_model.h"

namespace symbiosis {

enum class ControllerState { kStable, kAdapting, kTrying, kSettling, kVerifying };
const char* ControllerStateName(ControllerState state);

struct CandidateStats {
  uint64_t ma_bytes = 0;
  bool current = false;  // the configuration the engine ran in the round
  bool valid = false;    // had min_samples sampled accesses
  uint64_t samples = 0;  // sampled accesses in its window
  double hit_app = 0;
  double hit_second_tier = 0;
  double stores = 0;                 // second-tier stores per access (cost_model.h)
  double predicted_latency = 0;      // L_e
  double predicted_access_time = 0;  // A; 0 while the CPU load is unmeasured
  // The engine's memory at this M_a would exceed the budget: the cache
  // below (the page cache) would have negative room, counting the
  // application cache's overhead on its growth. Never adopted or tried:
  // under a memory cgroup the engine would be killed.
  bool overcommits = false;
};

// A trial: the candidate, and the busy thread time per access (us) at the
// M_a the round kept, interpolated to the candidate's measure between its
// measures before and after the trials, and at the candidate's; the same
// of the wall time per access (us, the inverse of the throughput).
// `noise_us` (`wall_noise_us`): the least difference of busy (wall)
// times that counts, twice the standard error of after - before from the
// spread of the measures' windows (docs/decisions/trial-noise.md); 0
// where a measure had one window.
struct TrialStats {
  uint64_t ma_bytes = 0;
  double before = 0;
  double after = 0;
  double before_wall_us = 0;
  double after_wall_us = 0;
  double noise_us = 0;
  double wall_noise_us = 0;
  bool kept = false;
  // Ended after its settle, twice as slow as the split in place or more
  // (docs/decisions/far-slower-trial.md).
  bool cut_short = false;
  // Measured for twice its windows: its first gain was within its noise
  // (docs/decisions/trial-extension.md).
  bool extended = false;
};

// A round's move, judged by measurement (ControllerConfig::verify_moves):
// the busy thread time per access (us) at the split before the round and
// at the one it moved to. `interleaved`: the first comparison showed the
// new split slower, and both were measured again in turn (new, old, new);
// then `from_us` is the old split's measure and `to_us` the new one's at
// its time. `undone`: M_a went back to the old split. `from_wall_us` and
// `to_wall_us`: the same of the wall time per access.
struct VerificationStats {
  bool checked = false;
  uint64_t from_ma_bytes = 0;
  uint64_t to_ma_bytes = 0;
  double from_us = 0;
  double to_us = 0;
  double from_wall_us = 0;
  double to_wall_us = 0;
  bool interleaved = false;
  bool undone = false;
};

struct RoundStats {
  uint64_t start_access = 0;
  uint64_t end_access = 0;  // 0 while running
  std::string trigger;      // why it started
  bool reset = false;       // the reset policy shrank M_a first
  std::vector<CandidateStats> candidates;  // ascending M_a
  // The engine's L_e while the current M_a's stage was measured, and the
  // ghost's L_e for that M_a.
  double measured_latency = 0;
  double simulated_latency = 0;
  uint64_t current_ma_bytes = 0;  // M_a the engine ran in the round
  // The share of the data in the sample (R on average; see GhostSim).
  double sampled_share = 0;
  uint64_t adopted_ma_bytes = 0;  // M_a after the round
  // "adopted", "rejected" or "abandoned", and why.
  std::string decision;
  std::string reason;
  // The trials after the round, in the order run (see Trying above).
  std::vector<TrialStats> trials;
  VerificationStats verification;  // of the move the round made, if any
};

// The decision settings in force, the engine's choices resolved: what a
// run's results were measured with.
struct DecisionSettings {
  double min_app_fraction = 0;
  double read_tie_margin = 0;
  bool change_floor_on_parts = false;
  double change_floor = 0;
  double app_miss_change_floor = 0;
  double device_read_change_floor = 0;
};

struct ControllerStats {
  ControllerState state = ControllerState::kStable;
  DecisionSettings settings;
  uint64_t memory_bytes = 0;      // M
  double sample_rate = 0;         // R
  // With rocksdb_tiers, the engine's caches' shard bits that the
  // model copies; -1 without.
  int block_cache_shard_bits = -1;
  int secondary_cache_shard_bits = -1;
  uint64_t ma_bytes = 0;         // M_a applied now
  uint64_t target_ma_bytes = 0;  // M_a being moved to
  uint64_t accesses = 0;          // application-cache accesses seen
  // The last full window.
  double hit_app = 0;
  double hit_second_tier = 0;
  double latency = 0;            // measured L_e
  double reference_latency = 0;  // Stable's reference; 0 when none
  MissCosts costs;               // in use now
  // What the costs started from: config.costs (WiredTiger's Open puts a
  // device read it measured there), before any window measured them.
  MissCosts prior_costs;
  bool app_miss_cost_measured = false;
  // C_a came from reads whose scheduler times were sampled, their wait for
  // a CPU left out (else from wall times, that wait included).
  bool app_miss_cost_split = false;
  bool second_tier_miss_cost_measured = false;
  bool second_tier_miss_cpu_measured = false;
  bool second_tier_store_measured = false;
  CpuLoad cpu_load;  // in use now
  bool cpu_load_measured = false;
  std::vector<RoundStats> rounds;  // the most recent, oldest first
  uint64_t ghost_memory_bytes = 0;  // now; outside rounds only the file sizes
  uint64_t peak_ghost_memory_bytes = 0;
  uint64_t ignored_events = 0;  // bad events dropped (zero sizes, ...)
  int64_t kernel_cache_offset_bytes = 0;  // see SetKernelCacheOffset
  uint32_t read_charge_overhead_bytes = 0;  // see SetReadChargeOverhead
};

std::string ToJson(const ControllerStats& stats);

}  // namespace symbiosis

#endif  // SYMBIOSIS_CONTROLLER_STATS_H_
