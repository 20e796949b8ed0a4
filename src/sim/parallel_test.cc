#include "sim/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace symbiosis {
namespace {

TEST(ParallelFor, RunsEveryJobOnce) {
  for (unsigned threads : {0u, 1u, 2u, 8u}) {
    std::vector<std::atomic<int>> runs(1000);
    ParallelFor(runs.size(), threads, [&](size_t i) { runs[i]++; });
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  }
  ParallelFor(0, 2, [](size_t) { FAIL() << "no job to run"; });
}

TEST(ParallelFor, RethrowsTheFirstErrorAfterJoining) {
  for (unsigned threads : {1u, 2u}) {
    std::atomic<int> started{0};
    auto job = [&](size_t i) {
      started++;
      if (i == 3) throw std::runtime_error("job 3");
    };
    EXPECT_THROW(ParallelFor(100, threads, job), std::runtime_error);
    // One thread takes jobs in order and stops at the failing one.
    if (threads == 1) {
      EXPECT_EQ(started.load(), 4);
    }
  }
}

}  // namespace
}  // namespace symbiosis
