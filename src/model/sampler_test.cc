#include "model/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "symbiosis/cost_model.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

TEST(Sampler, KeepsTheRequestedFractionOfGroups) {
  const Sampler sampler({1.0 / 64, 32, 2048});
  uint64_t kept = 0;
  const uint64_t files = 64, groups = 4096;
  for (uint64_t f = 0; f < files; f++) {
    for (uint64_t g = 0; g < groups; g++) kept += sampler.SampledGroup(f, g);
  }
  const double expected = files * groups / 64.0;
  // Binomial standard deviation is sqrt(n p (1-p)) ~ 64; allow 5 of them.
  EXPECT_NEAR(static_cast<double>(kept), expected, 5 * std::sqrt(expected));
  EXPECT_DOUBLE_EQ(sampler.scale(), 64.0);
}

TEST(Sampler, GroupsConsecutiveBlocksTogether) {
  const Sampler sampler({0.5, 32, 2048});
  EXPECT_EQ(sampler.group_bytes(), 32u * 2048);
  // Every block of a group shares the group's fate, neighbours included.
  for (uint64_t f = 0; f < 8; f++) {
    for (uint64_t g = 0; g < 64; g++) {
      const bool group_kept = sampler.SampledGroup(f, g);
      for (uint64_t offset = g * 65536; offset < (g + 1) * 65536; offset += 2000) {
        EXPECT_EQ(sampler.Sampled(Block{f, offset, 2000, 4096}), group_kept);
      }
    }
  }
}

TEST(Sampler, FileIdMatters) {
  // The reference implementation hashed the block number alone in RocksDB,
  // sampling the same ranges of every file. Ours must not.
  const Sampler sampler({0.25, 1, 4096});
  int differ = 0;
  for (uint64_t g = 0; g < 1000; g++) differ += sampler.SampledGroup(1, g) != sampler.SampledGroup(2, g);
  EXPECT_GT(differ, 200);
}

TEST(Sampler, RateOneKeepsEverything) {
  const Sampler sampler({1.0, 32, 4096});
  for (uint64_t g = 0; g < 1000; g++) EXPECT_TRUE(sampler.SampledGroup(g * 7, g));
}

TEST(Sampler, SampledBytesCountTheFilesSampledGroupsIncludingThePartialLast) {
  const Sampler sampler({0.25, 32, 2048});  // groups of 64 KiB
  const uint64_t bytes = 100 * 65536 + 1000;  // 100 groups and 1000 bytes
  for (uint64_t f = 1; f <= 20; f++) {
    uint64_t expected = 0;
    for (uint64_t g = 0; g < 100; g++) expected += sampler.SampledGroup(f, g) ? 65536 : 0;
    if (sampler.SampledGroup(f, 100)) expected += 1000;
    EXPECT_EQ(sampler.SampledBytes(f, bytes), expected) << "file " << f;
  }
  EXPECT_EQ(sampler.SampledBytes(7, 0), 0u);
  const Sampler all({1.0, 32, 2048});
  EXPECT_EQ(all.SampledBytes(7, bytes), bytes);
}

TEST(Sampler, RejectsBadOptions) {
  EXPECT_THROW(Sampler({0.0, 32, 4096}), InputError);
  EXPECT_THROW(Sampler({-0.5, 32, 4096}), InputError);
  EXPECT_THROW(Sampler({1.5, 32, 4096}), InputError);
  EXPECT_THROW(Sampler({std::nan(""), 32, 4096}), InputError);
  EXPECT_THROW(Sampler({0.5, 0, 4096}), InputError);
  EXPECT_THROW(Sampler({0.5, 32, 0}), InputError);
}

TEST(Block, PagesOfMisalignedBlocks) {
  const Block aligned{1, 8192, 4096, 8192};
  EXPECT_EQ(aligned.first_page(), 2u);
  EXPECT_EQ(aligned.page_count(), 1u);
  const Block straddling{1, 4000, 200, 400};
  EXPECT_EQ(straddling.first_page(), 0u);
  EXPECT_EQ(straddling.last_page(), 1u);
  EXPECT_EQ(straddling.page_count(), 2u);
  const Block inside{1, 100, 200, 400};
  EXPECT_EQ(inside.page_count(), 1u);
  const Block long_one{3, 4095, 8194, 16000};  // bytes 4095..12288: pages 0-3
  EXPECT_EQ(long_one.page_count(), 4u);
  EXPECT_NE(Block({1, 0, 1, 1}).key(), Block({2, 0, 1, 1}).key());
  EXPECT_NE(Block({1, 0, 1, 1}).key(), Block({1, 4096, 1, 1}).key());
}

TEST(CostModel, ExpectedLatency) {
  const MissCosts costs{3, 16};
  EXPECT_DOUBLE_EQ(ExpectedLatency(1, 0, costs), 0);
  EXPECT_DOUBLE_EQ(ExpectedLatency(0, 1, costs), 3);
  EXPECT_DOUBLE_EQ(ExpectedLatency(0, 0, costs), 19);
  EXPECT_DOUBLE_EQ(ExpectedLatency(0.5, 0.25, costs), 0.5 * (3 + 0.75 * 16));
}

}  // namespace
}  // namespace symbiosis
