#include "online/round_runner.h"

#include <gtest/gtest.h>

#include <vector>

namespace symbiosis {
namespace {

// Records the stages it is set to; every stage samples `samples` accesses
// with the given misses per sampled access.
class StageLog final : public RoundSimulator {
 public:
  std::vector<std::pair<size_t, bool>> stages;  // SetStage calls
  uint64_t samples = 1000;
  double app_miss = 0.5, second_tier_miss = 0.1, share = 1;
  bool all_at_once = false, warm = true;

  void Begin(const std::vector<uint64_t>& c, size_t current_index) override {
    candidates = c;
    current = current_index;
  }
  void SetStage(size_t stage, bool measuring) override { stages.emplace_back(stage, measuring); }
  bool AllCandidatesAtOnce() const override { return all_at_once; }
  bool CheckWarm() override { return warm; }
  uint64_t StageSamples() const override { return samples; }
  CandidateCounts Counts(size_t) const override {
    CandidateCounts c;
    c.stage_samples = samples;
    c.app_misses = static_cast<uint64_t>(app_miss * samples);
    c.app_misses_in_stage = true;
    c.second_tier_misses = static_cast<uint64_t>(second_tier_miss * samples);
    return c;
  }
  void End() override {}
  double SampledShare() const override { return share; }
  size_t MemoryUsage() const override { return 0; }

  std::vector<uint64_t> candidates;
  size_t current = 0;
};

ControllerConfig Config() {
  ControllerConfig c;
  c.memory_bytes = 1000;
  c.default_ma_bytes = 0;
  c.candidates = 5;
  c.min_samples = 100;
  c.parallel_candidates = false;
  return c;
}

EventTotals At(uint64_t accesses) {
  EventTotals t;
  t.accesses = accesses;
  t.app_hits = accesses / 2;
  return t;
}

TEST(RoundRunnerTest, TheCurrentSplitTakesTheNearestCandidatesPlace) {
  const ControllerConfig config = Config();
  StageLog sim;
  CostEstimator estimator(config);
  RoundRunner runner(config, &sim, &estimator);
  RoundStats round;
  runner.Start(0, 0, 1000, 260, &round);
  EXPECT_EQ(sim.candidates, (std::vector<uint64_t>{0, 260, 500, 750, 1000}));
  EXPECT_EQ(runner.current_index(), 1u);
  EXPECT_EQ(sim.current, 1u);
  ASSERT_EQ(round.candidates.size(), 5u);
  EXPECT_TRUE(round.candidates[1].current);
  EXPECT_FALSE(round.candidates[2].current);
  EXPECT_EQ(round.current_ma_bytes, 260u);
  EXPECT_FALSE(runner.warmed_up());
  EXPECT_EQ(runner.stage_end(), config.round_warmup_accesses);
}

TEST(RoundRunnerTest, StagesRunInTurnEachWarmedThenMeasured) {
  const ControllerConfig config = Config();
  StageLog sim;
  sim.samples = config.candidate_accesses;  // R = 1: every access sampled
  CostEstimator estimator(config);
  RoundRunner runner(config, &sim, &estimator);
  RoundStats round;
  runner.Start(0, 0, 1000, 500, &round);
  uint64_t now = 0;
  int calls = 0;
  bool done = false;
  while (!done && calls < 100) {
    now = runner.stage_end();
    done = runner.EndStage(now, At(now), std::nullopt, &round);
    ++calls;
  }
  ASSERT_TRUE(done);
  EXPECT_TRUE(runner.warmed_up());
  // Stage 0 measured after the round's warm-up; each later one warmed first.
  std::vector<std::pair<size_t, bool>> expected = {{0, true}};
  for (size_t s = 1; s < 5; s++) {
    expected.emplace_back(s, false);
    expected.emplace_back(s, true);
  }
  EXPECT_EQ(sim.stages, expected);
  for (const CandidateStats& c : round.candidates) {
    EXPECT_TRUE(c.valid);
    EXPECT_NEAR(c.hit_app, 0.5, 1e-12);
    // 0.1 of the accesses missed both tiers: 0.2 of the application misses.
    EXPECT_NEAR(c.hit_second_tier, 0.8, 1e-9);
    EXPECT_GT(c.predicted_latency, 0);
  }
  ASSERT_TRUE(runner.current_measured().has_value());
  EXPECT_NEAR(runner.current_measured()->hit_app, 0.5, 1e-6);
}

TEST(RoundRunnerTest, StageZeroWaitsForTheResizeAndTheGhostsToFill) {
  const ControllerConfig config = Config();
  StageLog sim;
  sim.warm = false;
  CostEstimator estimator(config);
  RoundRunner runner(config, &sim, &estimator);
  RoundStats round;
  runner.Start(0, 0, 1000, 500, &round);
  uint64_t now = runner.stage_end();
  EXPECT_FALSE(runner.EndStage(now, At(now), now + 777, &round));
  EXPECT_EQ(runner.stage_end(), now + 777);
  EXPECT_TRUE(sim.stages.empty());
  now = runner.stage_end();
  EXPECT_FALSE(runner.EndStage(now, At(now), std::nullopt, &round));
  EXPECT_EQ(runner.stage_end(), now + config.warmup_check_accesses);  // not warm yet
  EXPECT_FALSE(runner.warmed_up());
  // Past max_round_warmup_accesses it measures, warm or not.
  now = config.max_round_warmup_accesses;
  EXPECT_FALSE(runner.EndStage(now, At(now), std::nullopt, &round));
  EXPECT_TRUE(runner.warmed_up());
  ASSERT_EQ(sim.stages.size(), 1u);
  EXPECT_EQ(sim.stages[0], std::make_pair(size_t{0}, true));
}

TEST(RoundRunnerTest, AStageShortOfSamplesIsExtendedAtMostMaxExtensionsTimes) {
  const ControllerConfig config = Config();
  StageLog sim;
  sim.samples = config.min_samples - 1;
  CostEstimator estimator(config);
  RoundRunner runner(config, &sim, &estimator);
  RoundStats round;
  runner.Start(0, 0, 1000, 500, &round);
  uint64_t now = runner.stage_end();
  runner.EndStage(now, At(now), std::nullopt, &round);  // stage 0 measures
  for (uint32_t e = 0; e < config.max_extensions; e++) {
    now = runner.stage_end();
    EXPECT_FALSE(runner.EndStage(now, At(now), std::nullopt, &round));
    EXPECT_EQ(runner.stage_end(), now + config.candidate_accesses);
    EXPECT_EQ(sim.stages.size(), 1u);
  }
  now = runner.stage_end();
  runner.EndStage(now, At(now), std::nullopt, &round);
  EXPECT_EQ(sim.stages.size(), 2u);  // stage 1's warm-up
  EXPECT_FALSE(round.candidates[0].valid);  // too few samples
}

TEST(RoundRunnerTest, AllCandidatesAtOnceMeasureOneStage) {
  ControllerConfig config = Config();
  config.parallel_candidates = true;
  StageLog sim;
  sim.all_at_once = true;
  sim.share = 0.5;
  CostEstimator estimator(config);
  RoundRunner runner(config, &sim, &estimator);
  RoundStats round;
  runner.Start(0, 0, 1000, 500, &round);
  uint64_t now = runner.stage_end();
  EXPECT_FALSE(runner.EndStage(now, At(now), std::nullopt, &round));
  EXPECT_EQ(runner.stage_end(), now + config.parallel_measure_accesses);
  // The stage measured 2000 accesses; the sample held half the data, so
  // 1000 sampled accesses were expected and 500 misses are half of them.
  now += 2000;
  EXPECT_TRUE(runner.EndStage(now, At(now), std::nullopt, &round));
  runner.PredictAll(&round);
  EXPECT_EQ(sim.stages.size(), 1u);
  for (const CandidateStats& c : round.candidates) EXPECT_NEAR(c.hit_app, 0.5, 1e-12);
}

}  // namespace
}  // namespace symbiosis
