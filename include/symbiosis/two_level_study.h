// The offline two-level study (paper §3): sweep the application cache size
// M_a from 0 to M over a block trace, the kernel cache getting the rest
// (M_k = M - M_a), and report H_a, H_k and L_e at each split.
//
// The application cache is an LRU of uncompressed blocks. Its hits at every
// size come from one pass of GhostLru stack distances. The kernel cache
// sees only the reads that miss the application cache, a stream that
// depends on M_a, so each split replays the trace through its own kernel
// model; splits run in parallel.
//
// Inclusive (the default, as in a real engine): a block read from the
// kernel stays in the kernel cache, so both levels may hold a block.
// Exclusive: a block admitted to the application cache is dropped from the
// kernel cache and goes back to it when the application cache evicts it,
// so the two levels never overlap.

#ifndef SYMBIOSIS_TWO_LEVEL_STUDY_H_
#define SYMBIOSIS_TWO_LEVEL_STUDY_H_

#include <cstdint>
#include <vector>

#include "symbiosis/block_trace.h"
#include "symbiosis/cost_model.h"
#include "symbiosis/kernel_cache.h"

namespace symbiosis {

struct StudyOptions {
  uint64_t memory_bytes = uint64_t{1} << 30;  // M
  MissCosts costs;
  uint32_t points = 33;  // splits M_a = i * M / (points - 1), i = 0..points-1
  // Explicit splits (each M_a <= M), used instead of `points` when given,
  // e.g. to score the M_a an online controller chose.
  std::vector<uint64_t> splits;
  KernelModelKind kernel = KernelModelKind::kLinux;
  uint32_t max_readahead_pages = 32;
  bool exclusive = false;
  double warmup = 0.25;  // leading fraction of accesses not counted
  unsigned threads = 0;  // 0: one per core
  bool progress = false;
};

struct SplitPoint {
  uint64_t ma_bytes = 0;
  uint64_t mk_bytes = 0;
  double hit_app = 0;     // H_a
  double hit_second_tier = 0;  // H_k among application misses
  double latency = 0;     // L_e
  // H_k over all reads; equals hit_second_tier * (1 - hit_app).
  double second_tier_hits_per_read = 0;
};

struct StudyResult {
  std::vector<SplitPoint> points;  // ascending M_a
  SplitPoint best;                 // lowest L_e (smallest M_a on ties)
  uint64_t counted_accesses = 0;   // accesses after warm-up
};

// Throws InputError on bad options (M smaller than one block, points < 2,
// a split above M,
// warmup outside [0, 1), negative costs, empty trace).
StudyResult RunTwoLevelStudy(const BlockTrace& trace,
                             const StudyOptions& options);

}  // namespace symbiosis

#endif  // SYMBIOSIS_TWO_LEVEL_STUDY_H_
