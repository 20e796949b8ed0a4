#include "symbiosis/two_level_study.h"

#include <gtest/gtest.h>

#include "symbiosis/error.h"
#include "symbiosis/layout.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

BlockTrace UniformTrace(uint64_t data_bytes, bool aligned, double alpha = 0.5) {
  LayoutOptions o;
  o.data_bytes = data_bytes;
  o.alpha = alpha;
  o.aligned = aligned;
  o.size_jitter = 0;
  DataLayout layout(o);
  return TraceFromWorkload(layout, "uniform", 20 * layout.num_blocks(), 7);
}

TEST(TwoLevelStudy, UniformBlockLruMatchesClosedFormAndBruteForce) {
  const uint64_t data = 64 << 20, memory = 32 << 20;
  const BlockTrace trace = UniformTrace(data, /*aligned=*/true);
  StudyOptions options;
  options.memory_bytes = memory;
  options.points = 9;
  options.kernel = KernelModelKind::kBlockLru;
  const StudyResult result = RunTwoLevelStudy(trace, options);
  ASSERT_EQ(result.points.size(), 9u);

  const size_t warm = static_cast<size_t>(options.warmup * trace.accesses.size());
  for (const SplitPoint& p : result.points) {
    EXPECT_NEAR(p.hit_app, static_cast<double>(p.ma_bytes) / data, 0.01) << p.ma_bytes;
    EXPECT_EQ(p.ma_bytes + p.mk_bytes, memory);

    testing::ListLru app(p.ma_bytes), kernel(p.mk_bytes);
    uint64_t reads = 0, app_hits = 0, kernel_reads = 0, second_tier_hits = 0;
    for (size_t i = 0; i < trace.accesses.size(); i++) {
      const Block& b = trace.blocks[trace.accesses[i]];
      const bool counted = i >= warm;
      reads += counted;
      if (app.Access(trace.accesses[i], b.mem_size)) {
        app_hits += counted;
        continue;
      }
      const bool second_tier_hit = kernel.Access(trace.accesses[i], b.disk_size);
      kernel_reads += counted;
      second_tier_hits += counted && second_tier_hit;
    }
    const double ha = static_cast<double>(app_hits) / reads;
    const double hk = kernel_reads ? static_cast<double>(second_tier_hits) / kernel_reads : 0;
    EXPECT_NEAR(p.hit_app, ha, 0.01) << p.ma_bytes;
    EXPECT_NEAR(p.hit_second_tier, hk, 0.01) << p.ma_bytes;
    EXPECT_NEAR(p.latency, ExpectedLatency(ha, hk, options.costs), 0.01 * p.latency + 1e-9);
  }
}

// When each level holds half of the blocks, the inclusive kernel cache
// holds mostly copies of what the application cache has (both keep the
// most recently missed blocks), so H_k falls far below the closed form
// M_k / (alpha D_u) = 0.5. An exclusive hierarchy never duplicates: its
// kernel cache serves exactly M_k / (alpha D_u) of all reads.
TEST(TwoLevelStudy, InclusiveKernelHoldsDuplicatesExclusiveDoesNot) {
  const uint64_t data = 64 << 20;
  const double alpha = 0.5;
  const BlockTrace trace = UniformTrace(data, /*aligned=*/true, alpha);
  StudyOptions options;
  // M = D_u/2 + alpha D_u/2; the third of 4 points is M_a = 2M/3 = D_u/2.
  options.memory_bytes = data / 2 + static_cast<uint64_t>(alpha * data / 2);
  options.points = 4;
  options.kernel = KernelModelKind::kBlockLru;
  const SplitPoint inclusive = RunTwoLevelStudy(trace, options).points[2];
  options.exclusive = true;
  const SplitPoint exclusive = RunTwoLevelStudy(trace, options).points[2];
  ASSERT_EQ(inclusive.ma_bytes, data / 2);
  const double closed_form = inclusive.mk_bytes / (alpha * data);
  ASSERT_NEAR(closed_form, 0.5, 1e-9);

  EXPECT_NEAR(inclusive.hit_app, 0.5, 0.01);
  EXPECT_LT(inclusive.hit_second_tier, closed_form - 0.25);
  EXPECT_NEAR(inclusive.hit_second_tier, 0.16, 0.04);
  EXPECT_NEAR(exclusive.hit_app, 0.5, 0.01);
  EXPECT_NEAR(exclusive.second_tier_hits_per_read, closed_form, 0.01);
}

TEST(TwoLevelStudy, ExclusiveAndInclusiveShareTheApplicationCache) {
  const BlockTrace trace = UniformTrace(16 << 20, /*aligned=*/false);
  StudyOptions options;
  options.memory_bytes = 8 << 20;
  options.points = 5;
  options.kernel = KernelModelKind::kPageLru;
  const StudyResult inclusive = RunTwoLevelStudy(trace, options);
  options.exclusive = true;
  const StudyResult exclusive = RunTwoLevelStudy(trace, options);
  for (size_t i = 0; i < inclusive.points.size(); i++) {
    EXPECT_DOUBLE_EQ(inclusive.points[i].hit_app, exclusive.points[i].hit_app);
    // No duplicates: the exclusive kernel cache hits at least as often.
    EXPECT_GE(exclusive.points[i].hit_second_tier + 1e-9, inclusive.points[i].hit_second_tier);
  }
}

TEST(TwoLevelStudy, ExplicitSplitsScoreTheSameAsTheGrid) {
  const uint64_t memory = 8 << 20;
  const BlockTrace trace = UniformTrace(16 << 20, false);
  StudyOptions grid;
  grid.memory_bytes = memory;
  grid.points = 5;
  const StudyResult g = RunTwoLevelStudy(trace, grid);
  StudyOptions explicit_splits = grid;
  explicit_splits.splits = {memory / 2, 1 << 20, memory};  // any order, off-grid too
  const StudyResult e = RunTwoLevelStudy(trace, explicit_splits);
  ASSERT_EQ(e.points.size(), 3u);
  EXPECT_EQ(e.points[0].ma_bytes, memory / 2);
  EXPECT_DOUBLE_EQ(e.points[0].latency, g.points[2].latency);
  EXPECT_EQ(e.points[1].ma_bytes, 1u << 20);
  EXPECT_EQ(e.points[2].mk_bytes, 0u);
  EXPECT_DOUBLE_EQ(e.points[2].latency, g.points[4].latency);
  explicit_splits.splits = {memory + 1};
  EXPECT_THROW(RunTwoLevelStudy(trace, explicit_splits), InputError);
}

TEST(TwoLevelStudy, RejectsBadOptions) {
  const BlockTrace trace = UniformTrace(1 << 20, false);
  StudyOptions options;
  options.memory_bytes = 100;  // smaller than a block
  EXPECT_THROW(RunTwoLevelStudy(trace, options), InputError);
  options.memory_bytes = 1 << 20;
  options.points = 1;
  EXPECT_THROW(RunTwoLevelStudy(trace, options), InputError);
  options.points = 3;
  options.warmup = 1;
  EXPECT_THROW(RunTwoLevelStudy(trace, options), InputError);
  options.warmup = 0;
  options.costs.app_miss = -1;
  EXPECT_THROW(RunTwoLevelStudy(trace, options), InputError);
  EXPECT_THROW(RunTwoLevelStudy(BlockTrace{}, StudyOptions{}), InputError);
}

}  // namespace
}  // namespace symbiosis
