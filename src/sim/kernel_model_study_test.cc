#include "symbiosis/kernel_model_study.h"

#include <gtest/gtest.h>

#include "symbiosis/error.h"
#include "symbiosis/layout.h"

namespace symbiosis {
namespace {

BlockTrace ZipfTrace(uint64_t data_bytes) {
  LayoutOptions o;
  o.data_bytes = data_bytes;
  o.alpha = 0.5;
  DataLayout layout(o);
  return TraceFromWorkload(layout, "zipfian", 20 * layout.num_blocks(), 3);
}

TEST(KernelModelStudy, CurvesAndErrors) {
  const BlockTrace trace = ZipfTrace(32 << 20);
  KernelStudyOptions options;
  for (int i = 1; i <= 4; i++) options.capacities.push_back(trace.disk_bytes * i / 4);
  options.sample_rate = 0.5;
  const KernelStudyResult result = RunKernelModelStudy(trace, options);
  ASSERT_EQ(result.curves.size(), KernelStudyModels().size());
  EXPECT_EQ(result.curves[0].model, "kernel");
  EXPECT_DOUBLE_EQ(result.curves[0].mean_abs_error, 0);
  for (const KernelCurve& curve : result.curves) {
    ASSERT_EQ(curve.hit_ratio.size(), 4u);
    for (size_t c = 1; c < 4; c++) {
      // Bigger caches hit more (noise aside for the sampled models).
      EXPECT_GE(curve.hit_ratio[c] + 0.05, curve.hit_ratio[c - 1]) << curve.model;
    }
    EXPECT_LE(curve.mean_abs_error, curve.max_abs_error + 1e-12);
  }
  // With the whole data set cached, every unsampled model hits almost always.
  for (const KernelCurve& curve : result.curves) {
    if (curve.model == "sampled" || curve.model == "m-aware" || curve.model == "ghost") continue;
    EXPECT_GT(curve.hit_ratio[3], 0.9) << curve.model;
  }
  // A block LRU cannot see that a misaligned read brings in a neighbour's
  // page, so it is further from the page model than the page LRU.
  const auto find = [&](const std::string& name) {
    for (const KernelCurve& c : result.curves) if (c.model == name) return c;
    ADD_FAILURE() << name;
    return KernelCurve{};
  };
  EXPECT_GT(find("block-lru").mean_abs_error, find("page-lru").mean_abs_error);
  // Sampling single blocks loses the pages neighbours share; sampling
  // groups keeps them (paper Figure 7b).
  EXPECT_GT(find("sampled").mean_abs_error, find("m-aware").mean_abs_error + 0.05);
}

TEST(KernelModelStudy, RejectsBadOptions) {
  const BlockTrace trace = ZipfTrace(4 << 20);
  KernelStudyOptions options;
  EXPECT_THROW(RunKernelModelStudy(trace, options), InputError);  // no sizes
  options.capacities = {100};
  EXPECT_THROW(RunKernelModelStudy(trace, options), InputError);
  options.capacities = {1 << 20};
  options.sample_rate = 0;
  EXPECT_THROW(RunKernelModelStudy(trace, options), InputError);
  options.sample_rate = 0.5;
  options.group_blocks = 0;
  EXPECT_THROW(RunKernelModelStudy(trace, options), InputError);
}

}  // namespace
}  // namespace symbiosis
