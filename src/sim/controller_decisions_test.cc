// The Controller's decisions over fixed replays, compared with the ones
// recorded in tests/data/controller_decisions (testing/decision_record.h):
// a refactoring must leave every round, candidate and M_a as it was. The
// scripted engines' trials and verifications are recorded in
// online/tracker_test.cc.

#include <gtest/gtest.h>

#include <string>

#include "symbiosis/block_trace.h"
#include "symbiosis/layout.h"
#include "symbiosis/replay.h"
#include "testing/decision_record.h"

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kM = 1024 * kMiB;

// As replay_test.cc: M = 1 GiB, D_u = 2 GiB of 4 KiB blocks at alpha 0.5.
std::string ReplayRecord(const std::string& workload, uint64_t accesses, bool parallel = true) {
  LayoutOptions lo;
  lo.data_bytes = 2 * kM;
  const DataLayout layout(lo);
  const BlockTrace trace = TraceFromWorkload(layout, workload, accesses, 7);
  ReplayOptions o;
  o.controller.memory_bytes = kM;
  o.controller.block_disk_bytes = layout.mean_disk_block_bytes();
  o.controller.parallel_candidates = parallel;
  const ReplayResult r = RunReplay(trace, o);
  std::string out = testing::DecisionRecord(r.stats.rounds);
  out += "M_a over time:";
  for (const ReplayPoint& p : r.timeline) out += " " + std::to_string(p.ma_bytes >> 20);
  out += "\nfinal " + std::to_string(r.final_ma_bytes) + "\n";
  return out;
}

TEST(ControllerDecisionsTest, Zipfian) {
  testing::ExpectRecordedDecisions("replay_zipfian", ReplayRecord("zipfian", 3'000'000));
}

TEST(ControllerDecisionsTest, UniformOneCandidateAtATime) {
  testing::ExpectRecordedDecisions("replay_uniform_one_at_a_time",
                                   ReplayRecord("uniform", 3'000'000, false));
}

TEST(ControllerDecisionsTest, Hotspot20WhileTheDataSetGrows) {
  testing::ExpectRecordedDecisions(
      "replay_hotspot20_growth", ReplayRecord("hotspot20@1GiB*2M;hotspot20@2GiB*4M", 6'000'000));
}

TEST(ControllerDecisionsTest, StridedScan) {
  testing::ExpectRecordedDecisions("replay_strided", ReplayRecord("strided", 2'000'000));
}

}  // namespace
}  // namespace symbiosis
