// RoundSimulator: what the Tracker needs of a simulation round, so that the
// state machine can be driven by a scripted simulator in its tests.
// GhostSim (ghost_sim.h) is the real one.

#ifndef SYMBIOSIS_ONLINE_ROUND_SIMULATOR_H_
#define SYMBIOSIS_ONLINE_ROUND_SIMULATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace symbiosis {

// What the ghosts saw of one candidate, as raw sampled counts: the Tracker
// scales them by the expected sample size (see tracker.cc).
struct CandidateCounts {
  uint64_t stage_samples = 0;  // sampled accesses in the candidate's stage
  uint64_t kernel_reads = 0;   // of which missed the application ghost
  uint64_t second_tier_misses = 0;  // and missed the kernel ghost
  uint64_t app_misses = 0;     // application-ghost misses at its M_a,
                               // over every measured stage of the round
  bool app_misses_in_stage = false;  // or over the candidate's own stage
                                     // only (a ghost that is no stack)
  uint64_t second_tier_stores = 0;   // blocks the second tier stored in the
                                     // stage (RocksDB's compressed cache)
  // Where the budget is a memory cgroup: the room it would leave at this
  // M_a beside the engine's memory (M - M_a + the measured offset, less
  // the heap's growth with the cache), negative where the engine would
  // exceed the cgroup; INT64_MAX where no cgroup is measured.
  int64_t budget_room_bytes = INT64_MAX;
};

class RoundSimulator {
 public:
  virtual ~RoundSimulator() = default;
  // Starts a round over `candidates` (M_a values, ascending), at stage 0,
  // not measuring; candidates[current] is the M_a the engine runs.
  // REQUIRES: current < candidates.size().
  virtual void Begin(const std::vector<uint64_t>& candidates, size_t current) = 0;
  // Runs the ghosts in candidate `stage`'s configuration; `measuring`
  // counts what follows toward its prediction.
  virtual void SetStage(size_t stage, bool measuring) = 0;
  // Whether one stage measures every candidate at once (each on its own
  // ghosts, over the same accesses): then the Tracker runs one measured
  // stage and every candidate's counts come from it.
  virtual bool AllCandidatesAtOnce() const { return false; }
  // Whether the ghosts stopped filling: each is full, or grew by less than
  // 1% of its capacity since the previous call. Called at intervals
  // during the round's warm-up.
  virtual bool CheckWarm() = 0;
  // Sampled accesses measured at the current stage so far.
  virtual uint64_t StageSamples() const = 0;
  // REQUIRES: the stage was measured.
  virtual CandidateCounts Counts(size_t stage) const = 0;
  // The share of the data the round's sample holds, in (0, 1], fixed when
  // the first stage starts measuring: sampled counts stand for 1 / share
  // as many.
  virtual double SampledShare() const = 0;
  // Ends the round and frees the ghosts.
  virtual void End() = 0;
  virtual size_t MemoryUsage() const = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_ROUND_SIMULATOR_H_
