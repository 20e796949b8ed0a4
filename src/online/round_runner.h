// RoundRunner: the simulation half of a round (the Adapting state). It
// lays out the candidates, runs the round's warm-up and the candidates'
// stages on a RoundSimulator, and turns the ghosts' sampled counts into
// each candidate's prediction. What the predictions decide, and when a
// round is abandoned, is the Tracker's.
//
// The candidates run from the floor to M in n - 1 equal steps; the nearest
// one moves onto the current M_a (always within half a step), so the
// current configuration is simulated too and every prediction is compared
// with the ghosts' own prediction for it. Stage 0 runs only after the
// round's warm-up and once the engine runs the round's configuration;
// every later stage is warmed after its kernel ghost shrank, then
// measured, and extended while it lacks samples. A simulator that measures
// all candidates at once has stage 0 only.
//
// Time is the number of application-cache accesses, as in the Tracker.
// Not thread-safe: the Tracker serializes calls.

#ifndef SYMBIOSIS_ONLINE_ROUND_RUNNER_H_
#define SYMBIOSIS_ONLINE_ROUND_RUNNER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "online/cost_estimator.h"
#include "online/event_totals.h"
#include "online/round_simulator.h"
#include "symbiosis/controller_config.h"
#include "symbiosis/controller_stats.h"

namespace symbiosis {

class RoundRunner {
 public:
  // REQUIRES: `simulator` and `estimator` outlive the RoundRunner;
  // config.candidates >= 2.
  RoundRunner(const ControllerConfig& config, RoundSimulator* simulator,
              const CostEstimator* estimator);

  // Starts a round at `now` whose configuration is `current_ma`, in
  // [floor_bytes, memory_bytes]: lays out round->candidates and sets
  // round->current_ma_bytes. REQUIRES: round->start_access == now.
  void Start(uint64_t now, uint64_t floor_bytes, uint64_t memory_bytes, uint64_t current_ma,
             RoundStats* round);

  // The access at which EndStage has work.
  uint64_t stage_end() const { return stage_end_; }
  // Whether the round's warm-up is over: from then on the engine runs the
  // round's configuration and its windows measure it.
  bool warmed_up() const { return phase_ != Phase::kRoundWarmup; }

  // At or after stage_end(): moves to the next phase or stage, predicting
  // each candidate whose stage ended into round->candidates. `resize_due`:
  // while M_a has not reached the round's configuration, the access at
  // which its next step is due. Returns true once every stage is measured.
  bool EndStage(uint64_t now, const EventTotals& totals, std::optional<uint64_t> resize_due,
                RoundStats* round);

  // Predicts every candidate anew from the round's counts so far (the
  // application ghost's grew over the whole round; the costs may have
  // been re-measured).
  void PredictAll(RoundStats* round) const;

  size_t current_index() const { return current_index_; }
  // What the engine measured at the current M_a over exactly the accesses
  // the ghosts measured it on; none before that stage ended.
  const std::optional<WindowRatios>& current_measured() const { return current_measured_; }

 private:
  enum class Phase { kRoundWarmup, kCandidateWarmup, kCandidateMeasure };

  // A candidate's prediction from its stage's counts.
  void Predict(size_t stage, CandidateStats* c) const;

  const ControllerConfig& config_;
  RoundSimulator* const simulator_;
  const CostEstimator* const estimator_;

  Phase phase_ = Phase::kRoundWarmup;
  std::vector<uint64_t> candidates_;
  size_t current_index_ = 0;  // the candidate moved onto the current M_a
  size_t stage_ = 0;
  uint64_t stage_end_ = 0;
  uint32_t extensions_ = 0;
  EventTotals stage_start_;  // totals when the measured stage began
  std::vector<uint64_t> stage_accesses_;  // accesses each stage measured
  std::optional<WindowRatios> current_measured_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_ROUND_RUNNER_H_
