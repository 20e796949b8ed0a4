// The kernel-model study (paper §4.2.3, Figure 7): how closely cheaper
// models of the kernel cache follow the full page-cache model.
//
// A block read stream goes straight to a kernel cache of each capacity
// (no application cache above it), and each model's hit-ratio curve is
// compared with the reference, PageCacheModel with 2Q and read-ahead:
//
//   kernel          the reference (2Q, refault activation, read-ahead)
//   kernel-nora     the same without read-ahead
//   block-lru       an LRU of whole blocks: blind to misalignment
//   page-lru        an LRU of pages: sees misalignment
//   sampled         page-lru over a spatial sample of single blocks (G = 1)
//   m-aware         page-lru over a sample of groups of G blocks
//   ghost           the full page model over the sample of groups of G
//                   blocks: what GhostSim runs online
//
// Sampled models run scaled down on the sampled reads: at capacity r * C,
// r the fraction of the data bytes the sample really keeps (close to R);
// their 2Q balance uses the full size C, and they read ahead only into
// sampled groups.

#ifndef SYMBIOSIS_KERNEL_MODEL_STUDY_H_
#define SYMBIOSIS_KERNEL_MODEL_STUDY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "symbiosis/block_trace.h"

namespace symbiosis {

struct KernelStudyOptions {
  std::vector<uint64_t> capacities;  // kernel cache sizes in bytes
  double sample_rate = 1.0 / 64;     // R for the sampled models
  uint32_t group_blocks = 32;        // G for m-aware and ghost
  uint32_t max_readahead_pages = 32;
  double warmup = 0.25;
  unsigned threads = 0;
  bool progress = false;
};

struct KernelCurve {
  std::string model;
  std::vector<double> hit_ratio;  // one per capacity
  double mean_abs_error = 0;      // against the reference curve
  double max_abs_error = 0;
};

struct KernelStudyResult {
  std::vector<uint64_t> capacities;
  std::vector<KernelCurve> curves;  // curves[0] is the reference
};

// The model names above, reference first.
std::vector<std::string> KernelStudyModels();

// Throws InputError on bad options (no capacities, a capacity below one
// page, a rate outside (0, 1], G = 0, a bad trace, a sample that would be
// smaller than one page of the smallest cache).
KernelStudyResult RunKernelModelStudy(const BlockTrace& trace,
                                      const KernelStudyOptions& options);

}  // namespace symbiosis

#endif  // SYMBIOSIS_KERNEL_MODEL_STUDY_H_
