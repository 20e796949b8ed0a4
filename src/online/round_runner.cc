#include "online/round_runner.h"

#include <algorithm>

#include "symbiosis/cost_model.h"

namespace symbiosis {

RoundRunner::RoundRunner(const ControllerConfig& config, RoundSimulator* simulator,
                         const CostEstimator* estimator)
    : config_(config), simulator_(simulator), estimator_(estimator) {}

void RoundRunner::Start(uint64_t now, uint64_t floor_bytes, uint64_t memory_bytes,
                        uint64_t current_ma, RoundStats* round) {
  const uint32_t n = config_.candidates;
  candidates_.clear();
  for (uint32_t i = 0; i < n; i++) {
    candidates_.push_back(floor_bytes + static_cast<uint64_t>(
        static_cast<long double>(memory_bytes - floor_bytes) * i / (n - 1)));
  }
  current_index_ = 0;
  for (size_t i = 1; i < n; i++) {
    const auto gap = [&](size_t k) {
      return candidates_[k] > current_ma ? candidates_[k] - current_ma
                                         : current_ma - candidates_[k];
    };
    if (gap(i) < gap(current_index_)) current_index_ = i;
  }
  candidates_[current_index_] = current_ma;
  round->current_ma_bytes = current_ma;
  round->candidates.clear();
  for (size_t i = 0; i < n; i++) {
    CandidateStats c;
    c.ma_bytes = candidates_[i];
    c.current = i == current_index_;
    round->candidates.push_back(c);
  }
  current_measured_.reset();
  stage_accesses_.assign(n, 0);
  stage_ = 0;
  extensions_ = 0;
  phase_ = Phase::kRoundWarmup;
  stage_end_ = now + config_.round_warmup_accesses;
  simulator_->Begin(candidates_, current_index_);
}

bool RoundRunner::EndStage(uint64_t now, const EventTotals& totals,
                           std::optional<uint64_t> resize_due, RoundStats* round) {
  switch (phase_) {
    case Phase::kRoundWarmup:
      if (resize_due) {
        stage_end_ = *resize_due;
        return false;
      }
      if (!simulator_->CheckWarm() &&
          now < round->start_access + config_.max_round_warmup_accesses) {
        stage_end_ = now + config_.warmup_check_accesses;
        return false;
      }
      [[fallthrough]];
    case Phase::kCandidateWarmup:
      simulator_->SetStage(stage_, true);
      phase_ = Phase::kCandidateMeasure;
      stage_end_ = now + (simulator_->AllCandidatesAtOnce() ? config_.parallel_measure_accesses
                                                             : config_.candidate_accesses);
      stage_start_ = totals;
      return false;
    case Phase::kCandidateMeasure:
      break;
  }
  if (simulator_->StageSamples() < config_.min_samples && extensions_ < config_.max_extensions) {
    ++extensions_;
    stage_end_ = now + config_.candidate_accesses;
    return false;
  }
  if (simulator_->AllCandidatesAtOnce()) {
    // The engine ran the current M_a over the accesses every candidate
    // was measured on.
    current_measured_ = RatiosOf(Since(stage_start_, totals));
    stage_accesses_.assign(candidates_.size(), totals.accesses - stage_start_.accesses);
    return true;
  }
  if (stage_ == current_index_) current_measured_ = RatiosOf(Since(stage_start_, totals));
  stage_accesses_[stage_] = totals.accesses - stage_start_.accesses;
  Predict(stage_, &round->candidates[stage_]);
  if (stage_ + 1 == candidates_.size()) return true;
  ++stage_;
  extensions_ = 0;
  simulator_->SetStage(stage_, false);
  phase_ = Phase::kCandidateWarmup;
  stage_end_ = now + config_.candidate_warmup_accesses;
  if (config_.candidate_warmup_accesses == 0) return EndStage(now, totals, resize_due, round);
  return false;
}

void RoundRunner::PredictAll(RoundStats* round) const {
  for (size_t i = 0; i < round->candidates.size(); i++) Predict(i, &round->candidates[i]);
}

// A candidate's prediction from the ghosts' sampled counts. Misses are
// divided by the number of sampled accesses expected, the sample's share
// of the data times the accesses, not by the number the sample happened
// to get: a skewed workload whose hottest blocks fall in (or out of) the
// sample would otherwise shift every hit ratio (SHARDS-adj, Waldspurger et
// al., FAST '15). Misses come from the cold and warm blocks, which a
// sample of groups represents fairly. The application ghost is counted
// over every measured stage (a ghost that is no stack, over the
// candidate's own), the kernel ghost over the candidate's own stage.
void RoundRunner::Predict(size_t stage, CandidateStats* c) const {
  const CandidateCounts counts = simulator_->Counts(stage);
  uint64_t app_accesses = 0;
  if (counts.app_misses_in_stage) {
    app_accesses = stage_accesses_[stage];
  } else {
    for (const uint64_t a : stage_accesses_) app_accesses += a;
  }
  const double share = simulator_->SampledShare();
  const double app_miss =
      app_accesses ? std::min(1.0, counts.app_misses / (share * app_accesses)) : 1;
  const double second_tier_miss =
      stage_accesses_[stage]
          ? std::min(app_miss, counts.second_tier_misses / (share * stage_accesses_[stage]))
          : 0;
  c->samples = counts.stage_samples;
  // A split whose memory would exceed the budget is never chosen: under a
  // memory cgroup the engine would meet the OOM killer (a LevelDB trial of
  // M_a = M at M = 512 MiB did, its heap 8% above its block cache: bench/
  // heldout.md). The running split is what it is.
  c->overcommits = counts.budget_room_bytes < 0 && !c->current;
  c->valid = counts.stage_samples >= config_.min_samples && !c->overcommits;
  c->hit_app = 1 - app_miss;
  c->hit_second_tier = app_miss > 0 ? 1 - second_tier_miss / app_miss : 1;
  c->stores = stage_accesses_[stage] ? counts.second_tier_stores /
                                           (share * stage_accesses_[stage])
                                     : 0;
  const MissCosts& costs = estimator_->costs();
  c->predicted_latency = ExpectedLatency(c->hit_app, c->hit_second_tier, costs, c->stores);
  c->predicted_access_time =
      estimator_->cpu_load_measured()
          ? AccessTime(c->hit_app, c->hit_second_tier, costs, estimator_->cpu_load(), c->stores)
          : 0;
}

}  // namespace symbiosis
