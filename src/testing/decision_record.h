// The Controller's decisions as text, and a golden-file check of them.
//
// A refactoring that is meant to move no decision (the Tracker split into
// its parts, a renaming) must reproduce the decisions recorded before it,
// byte for byte: every round's trigger, candidates, predictions, decision,
// trials and verification, and where M_a went. A change of rules records
// them anew (SYMBIOSIS_RECORD_DECISIONS=1 when running the tests) and says
// so in its commit. The files are tests/data/controller_decisions/NAME.txt.

#ifndef SYMBIOSIS_TESTING_DECISION_RECORD_H_
#define SYMBIOSIS_TESTING_DECISION_RECORD_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "symbiosis/controller.h"

namespace symbiosis::testing {

inline std::string Num(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", x);
  return text;
}

// One line per round, candidate, trial and verification.
inline std::string DecisionRecord(const std::vector<RoundStats>& rounds) {
  std::string out;
  for (const RoundStats& r : rounds) {
    out += "round " + std::to_string(r.start_access) + ".." + std::to_string(r.end_access) +
           " trigger=" + r.trigger + " reset=" + std::to_string(r.reset) +
           " current=" + std::to_string(r.current_ma_bytes) + " decision=" + r.decision +
           " adopted=" + std::to_string(r.adopted_ma_bytes) +
           " measured=" + Num(r.measured_latency) + " simulated=" + Num(r.simulated_latency) +
           "\n  reason: " + r.reason + "\n";
    for (const CandidateStats& c : r.candidates) {
      out += "  candidate " + std::to_string(c.ma_bytes) + " current=" + std::to_string(c.current) +
             " valid=" + std::to_string(c.valid) + " samples=" + std::to_string(c.samples) +
             " H_a=" + Num(c.hit_app) + " H_k=" + Num(c.hit_second_tier) + " stores=" + Num(c.stores) +
             " L_e=" + Num(c.predicted_latency) + " A=" + Num(c.predicted_access_time) +
             " overcommits=" + std::to_string(c.overcommits) + "\n";
    }
    for (const TrialStats& t : r.trials) {
      out += "  trial " + std::to_string(t.ma_bytes) + " before=" + Num(t.before) +
             " after=" + Num(t.after) + " wall_before=" + Num(t.before_wall_us) +
             " wall_after=" + Num(t.after_wall_us) + " kept=" + std::to_string(t.kept) + "\n";
    }
    const VerificationStats& v = r.verification;
    if (v.checked) {
      out += "  verification " + std::to_string(v.from_ma_bytes) + "->" +
             std::to_string(v.to_ma_bytes) + " from=" + Num(v.from_us) + " to=" + Num(v.to_us) +
             " wall_from=" + Num(v.from_wall_us) + " wall_to=" + Num(v.to_wall_us) +
             " interleaved=" + std::to_string(v.interleaved) +
             " undone=" + std::to_string(v.undone) + "\n";
    }
  }
  return out;
}

// Compares `record` with tests/data/controller_decisions/NAME.txt, or
// writes it there when SYMBIOSIS_RECORD_DECISIONS is set.
inline void ExpectRecordedDecisions(const std::string& name, const std::string& record) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path repo =
      fs::absolute(fs::path(__FILE__), error).parent_path().parent_path().parent_path();
  const fs::path path = repo / "tests" / "data" / "controller_decisions" / (name + ".txt");
  if (std::getenv("SYMBIOSIS_RECORD_DECISIONS") != nullptr) {
    fs::create_directories(path.parent_path(), error);
    std::ofstream(path) << record;
    std::printf("recorded the decisions of %s in %s\n", name.c_str(), path.c_str());
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no recorded decisions at " << path
                  << "; record them with SYMBIOSIS_RECORD_DECISIONS=1 (a change of rules)";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), record) << "the decisions of " << name << " moved; if the rules changed "
                                << "on purpose, record them again (SYMBIOSIS_RECORD_DECISIONS=1)";
}

}  // namespace symbiosis::testing

#endif  // SYMBIOSIS_TESTING_DECISION_RECORD_H_
