#include "online/working_set_probe.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace symbiosis {
namespace {

Block BlockAt(uint64_t file_id, uint64_t index) {
  Block b;
  b.file_id = file_id;
  b.offset = index * 4096;
  b.disk_size = 4096;
  b.mem_size = 4096;
  return b;
}

TEST(WorkingSetProbeTest, CountsDistinctBlocksWithinAPercent) {
  auto probe = std::make_unique<WorkingSetProbe>();
  EXPECT_EQ(probe->Distinct(), 0);
  // Up to 3x the bits (2^15).
  for (const uint64_t n : {1000u, 20'000u, 98'000u}) {
    probe->Clear();
    for (uint64_t i = 0; i < n; i++) probe->Add(BlockAt(7 + i % 5, i));
    for (uint64_t i = 0; i < n; i += 3) probe->Add(BlockAt(7 + i % 5, i));  // seen again
    EXPECT_NEAR(probe->Distinct(), static_cast<double>(n), 0.01 * n) << n;
  }
  probe->Clear();
  EXPECT_EQ(probe->Distinct(), 0);
}

TEST(WorkingSetProbeTest, ABlockIsItsFileAndOffset) {
  auto probe = std::make_unique<WorkingSetProbe>();
  for (uint64_t i = 0; i < 10'000; i++) {
    probe->Add(BlockAt(1, i));
    probe->Add(BlockAt(2, i));
  }
  EXPECT_NEAR(probe->Distinct(), 20'000, 200);
}

// Every bit set: a finite count, the most the probe can tell.
TEST(WorkingSetProbeTest, SaturatesAtAFiniteCount) {
  auto probe = std::make_unique<WorkingSetProbe>();
  for (uint64_t i = 0; i < 20 * (uint64_t{1} << WorkingSetProbe::kBitsLog2); i++) {
    probe->Add(BlockAt(1, i));
  }
  const double most = probe->Distinct();
  EXPECT_GT(most, 3e5);
  EXPECT_LT(most, 4e5);  // 2^15 ln 2^15
}

// Threads adding overlapping sets count their union.
TEST(WorkingSetProbeTest, ConcurrentAddsCountTheUnion) {
  auto probe = std::make_unique<WorkingSetProbe>();
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; t++) {
    threads.emplace_back([&probe, t] {
      for (uint64_t i = t * 10'000; i < t * 10'000 + 40'000; i++) probe->Add(BlockAt(3, i));
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_NEAR(probe->Distinct(), 70'000, 700);
}

}  // namespace
}  // namespace symbiosis
