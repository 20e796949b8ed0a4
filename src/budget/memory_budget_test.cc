#include "symbiosis/memory_budget.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "symbiosis/cgroup.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// The real thing on this process's cgroup: M is its limit less the
// reserve where it has one, an error where it has none.
TEST(MemoryBudgetTest, ComesFromTheCgroupWhenNotGiven) {
  const uint64_t reserve = 16 * kMiB, default_app = 8 * kMiB;
  std::optional<uint64_t> limit;
  try {
    limit = ReadMemoryLimit(DetectMemoryCgroup());
  } catch (const CgroupError& e) {
    std::printf("no memory cgroup here (%s): checking the error path only\n", e.what());
  }
  if (limit && *limit > reserve + default_app) {
    EXPECT_EQ(ResolveMemoryBudget(0, reserve, default_app), *limit - reserve);
  } else {
    if (!limit) std::printf("this process's memory cgroup has no limit: expecting an error\n");
    EXPECT_THROW(ResolveMemoryBudget(0, reserve, default_app), std::runtime_error);
  }
  EXPECT_EQ(ResolveMemoryBudget(100 * kMiB, reserve, default_app), 100 * kMiB);
}

TEST(MemoryBudgetTest, AnEngineBelowItsMinimumIsToldToGiveMore) {
  try {
    ResolveEngineMemory(8 * kMiB, 16 * kMiB, 8 * kMiB, 16 * kMiB, "LevelDB");
    ADD_FAILURE() << "accepted 8 MiB below a 16 MiB minimum";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("give LevelDB more memory"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ResolveEngineMemory(32 * kMiB, 16 * kMiB, 8 * kMiB, 16 * kMiB, "LevelDB"), 32 * kMiB);
}

}  // namespace
}  // namespace symbiosis
