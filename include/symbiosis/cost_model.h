// The cost model of the paper (§3.2): the expected latency of a read that
// reaches the cache hierarchy,
//
//   L_e = (1 - H_a) * (C_a + (1 - H_k) * C_k)
//
// H_a: application-cache hit ratio. H_k: kernel (compressed) cache hit
// ratio among the reads that missed the application cache. C_a: cost of an
// application miss served from memory (kernel crossing, copy,
// decompression). C_k: cost of a device read. Only C_a / C_k decides which
// split is best; the unit is the caller's (microseconds by convention).

#ifndef SYMBIOSIS_COST_MODEL_H_
#define SYMBIOSIS_COST_MODEL_H_

namespace symbiosis {

struct MissCosts {
  double app_miss = 3;      // C_a
  double kernel_miss = 16;  // C_k (LevelDB on the paper's Optane machine)
};

// REQUIRES: hit ratios in [0, 1], costs >= 0.
inline double ExpectedLatency(double hit_app, double hit_kernel,
                              const MissCosts& costs) {
  return (1 - hit_app) * (costs.app_miss + (1 - hit_kernel) * costs.kernel_miss);
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_COST_MODEL_H_
