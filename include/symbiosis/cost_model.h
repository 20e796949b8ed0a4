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
//
// L_e is the time a request spends waiting, which is what throughput pays
// while there are CPUs to spare. With more busy threads than CPUs it is
// not: while one thread waits for the device, another serves a hit on the
// CPU, and the CPU's work decides. The asymptotic bounds of a closed
// system (operational analysis: T threads that alternate between P CPUs
// and a device delay) give the throughput X <= P / c and X <= T / (c + w),
// c the CPU time and w the device wait per access. The time per access,
// in thread units, T / X, is then at least
//
//   A = max(T / P * c, c + w),
//   c = c_0 + (1 - H_a) * (C_a + (1 - H_k) * C_k_cpu),
//   w = (1 - H_a) * (1 - H_k) * (C_k - C_k_cpu),
//
// c_0 the CPU per access that no cache saves (the lookup, the rest of the
// operation, background work) and C_k_cpu the part of C_k spent on a CPU
// (the system call, reclaim, read-ahead's page insertions). A counts C_a
// as CPU: a read the kernel cache serves is a copy. With T <= P, A is
// c_0 + L_e: the paper's model.
//
// RocksDB's compressed cache adds a cost the paper's model lacks: each
// block the block cache evicts into it is compressed, on the thread whose
// insert evicted it. S such stores per access, C_s each, add S * C_s to
// L_e and to c. S depends on the split: none at M_a = M, where nothing is
// stored, the most where a small block cache churns. Where no second tier
// stores (the page cache), S = 0.

#ifndef SYMBIOSIS_COST_MODEL_H_
#define SYMBIOSIS_COST_MODEL_H_

namespace symbiosis {

struct MissCosts {
  double app_miss = 3;      // C_a
  double second_tier_miss = 16;  // C_k (LevelDB on the paper's Optane machine)
  double second_tier_miss_cpu = 0;  // C_k_cpu, <= C_k; used only by AccessTime
  double second_tier_store = 0;  // C_s
};

// What A needs beyond the costs; measured by the Controller.
struct CpuLoad {
  double cpus = 1;      // P: CPUs the threads may run on
  double threads = 1;   // T: threads busy on average (on a CPU, runnable or on the device)
  double base_cpu = 0;  // c_0, the caller's unit per access
};

// The share of accesses that reach the device: application misses that
// the page cache missed too. REQUIRES: hit ratios in [0, 1].
inline double DeviceReadsPerAccess(double hit_app, double hit_second_tier) {
  return (1 - hit_app) * (1 - hit_second_tier);
}

// L_e with `stores` = S per access. REQUIRES: hit ratios in [0, 1],
// costs >= 0, stores >= 0.
inline double ExpectedLatency(double hit_app, double hit_second_tier, const MissCosts& costs,
                              double stores = 0) {
  return (1 - hit_app) * (costs.app_miss + (1 - hit_second_tier) * costs.second_tier_miss) +
         stores * costs.second_tier_store;
}

// A, above. REQUIRES: as ExpectedLatency; load.cpus > 0, load.threads >= 0.
inline double AccessTime(double hit_app, double hit_second_tier, const MissCosts& costs,
                         const CpuLoad& load, double stores = 0) {
  const double app_miss = 1 - hit_app;
  const double device = DeviceReadsPerAccess(hit_app, hit_second_tier);
  const double miss_cpu = costs.second_tier_miss_cpu < costs.second_tier_miss ? costs.second_tier_miss_cpu
                                                                     : costs.second_tier_miss;
  const double cpu = load.base_cpu + app_miss * costs.app_miss + device * miss_cpu +
                     stores * costs.second_tier_store;
  const double wait = device * (costs.second_tier_miss - miss_cpu);
  const double cpu_bound = load.threads / load.cpus * cpu;
  return cpu_bound > cpu + wait ? cpu_bound : cpu + wait;
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_COST_MODEL_H_
