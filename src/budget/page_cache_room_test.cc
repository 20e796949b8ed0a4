#include "budget/page_cache_room.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(PageCacheOffsetTest, IsTheReserveLessTheEnginesOtherMemory) {
  CgroupMemoryUsage usage;
  usage.usage = 200 * kMiB;
  usage.file = 100 * kMiB;
  // limit 288, M 256: a 32 MiB reserve; 100 MiB not file, of which 90 is
  // the application cache: 10 MiB of other memory.
  EXPECT_EQ(PageCacheOffset(288 * kMiB, 256 * kMiB, usage, 90 * kMiB), 22 * int64_t{kMiB});
  // Other memory beyond the reserve makes it negative.
  EXPECT_EQ(PageCacheOffset(288 * kMiB, 256 * kMiB, usage, 40 * kMiB), -28 * int64_t{kMiB});
  // A cache larger than the charges read (they are read apart): no other.
  EXPECT_EQ(PageCacheOffset(288 * kMiB, 256 * kMiB, usage, 150 * kMiB), 32 * int64_t{kMiB});
  // memory.stat read after usage grew: file above usage counts as 0.
  usage.file = 250 * kMiB;
  EXPECT_EQ(PageCacheOffset(288 * kMiB, 256 * kMiB, usage, 0), 32 * int64_t{kMiB});
}

// The real thing on this process's cgroup: with a limit, the monitor
// hands on measurements; without a limit it hands on none.
TEST(PageCacheRoomMonitorTest, AppliesMeasurementsOfThisProcessesCgroup) {
  std::optional<MemoryCgroup> cgroup;
  std::optional<uint64_t> limit;
  try {
    cgroup = DetectMemoryCgroup();
    limit = ReadMemoryLimit(*cgroup);
  } catch (const CgroupError& e) {
    std::printf("no memory cgroup (%s): checking the monitor's error path only\n", e.what());
    return;
  }
  std::atomic<int64_t> applied{0};
  std::atomic<int> applications{0};
  PageCacheRoomMonitor monitor(
      *cgroup, 64 * kMiB, [] { return uint64_t{0}; }, nullptr,
      [&](int64_t offset) {
        applied.store(offset);
        applications.fetch_add(1);
      },
      std::chrono::milliseconds(10));
  // Without a limit, ten intervals pass with nothing applied.
  for (int i = 0; i < (limit ? 500 : 10) && monitor.updates() < 2; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!limit) {
    std::printf("this process's memory cgroup has no limit: expecting no measurement\n");
    EXPECT_EQ(monitor.updates(), 0u);
    EXPECT_EQ(applications.load(), 0);
    return;
  }
  ASSERT_GE(monitor.updates(), 2u);
  EXPECT_GE(applications.load(), 2);
  // With no application cache every non-file charge is other memory: the
  // offset is at most limit - M, and this test process uses some memory.
  const int64_t offset = applied.load();
  EXPECT_LT(offset, static_cast<int64_t>(*limit) - static_cast<int64_t>(64 * kMiB));
}

}  // namespace
}  // namespace symbiosis
