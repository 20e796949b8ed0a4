// ghost_lru_bench: GhostLru throughput and memory on a scrambled zipfian
// trace (YCSB's generator, theta 0.99) of 4 KiB blocks.
//
//   ghost_lru_bench [--accesses N] [--keys K] [--repeats R]
//
// Prints accesses/s of each repeat (wall clock and CPU time of the thread;
// on a shared machine the CPU figure is the stabler one) and the medians,
// bytes of heap per
// tracked entry, and the hit ratio at a few capacities (a checksum that
// also keeps the work observable). The trace is generated before timing.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "symbiosis/ghost_lru.h"
#include "symbiosis/hash.h"

namespace symbiosis {
namespace {

constexpr uint64_t kBlockBytes = 4096;

// Gray et al., "Quickly generating billion-record synthetic databases"
// (SIGMOD'94), as in YCSB: rank 0 is the most popular of n items.
class ZipfianRanks {
 public:
  ZipfianRanks(uint64_t n, double theta, uint64_t seed)
      : n_(n), theta_(theta), rng_(seed) {
    for (uint64_t i = 1; i <= n; ++i) zeta_n_ += 1 / std::pow(i, theta);
    const double zeta_2 = 1 + 1 / std::pow(2, theta);
    alpha_ = 1 / (1 - theta);
    eta_ = (1 - std::pow(2.0 / n, 1 - theta)) / (1 - zeta_2 / zeta_n_);
  }

  uint64_t Next() {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
    const double uz = u * zeta_n_;
    if (uz < 1) return 0;
    if (uz < 1 + std::pow(0.5, theta_)) return 1;
    const auto rank = static_cast<uint64_t>(
        n_ * std::pow(eta_ * u - eta_ + 1, alpha_));
    return std::min(rank, n_ - 1);
  }

 private:
  uint64_t n_;
  double theta_;
  std::mt19937_64 rng_;
  double zeta_n_ = 0, alpha_ = 0, eta_ = 0;
};

// CPU time of this thread: on a shared machine it counts only our work.
double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

uint64_t FlagValue(int argc, char** argv, const char* name, uint64_t value) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::strtoull(argv[i + 1], nullptr, 10);
  }
  return value;
}

int Main(int argc, char** argv) {
  const uint64_t accesses = FlagValue(argc, argv, "--accesses", 10'000'000);
  const uint64_t keys = FlagValue(argc, argv, "--keys", 1'000'000);
  const uint64_t repeats = FlagValue(argc, argv, "--repeats", 5);

  // Scrambled: a rank's key is its hash, so hot keys are spread out.
  ZipfianRanks ranks(keys, 0.99, 42);
  std::vector<uint64_t> trace(accesses);
  for (uint64_t& key : trace) key = Mix64(ranks.Next());

  const std::vector<uint64_t> capacities = {keys / 100 * kBlockBytes,
                                            keys / 10 * kBlockBytes,
                                            keys / 2 * kBlockBytes};
  std::vector<double> rates, cpu_rates;
  std::vector<uint64_t> hits(capacities.size());
  size_t entries = 0, memory = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    GhostLru ghost;
    std::fill(hits.begin(), hits.end(), 0);
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t key : trace) {
      const uint64_t distance = ghost.Access(key, kBlockBytes);
      for (size_t i = 0; i < capacities.size(); ++i) hits[i] += distance <= capacities[i];
    }
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    rates.push_back(accesses / elapsed.count());
    cpu_rates.push_back(accesses / (ThreadCpuSeconds() - cpu_start));
    entries = ghost.entries();
    memory = ghost.MemoryUsage();
    std::printf("repeat %llu: %.2f M accesses/s wall, %.2f M/s CPU\n",
                static_cast<unsigned long long>(r + 1), rates.back() / 1e6,
                cpu_rates.back() / 1e6);
  }
  std::sort(rates.begin(), rates.end());
  std::sort(cpu_rates.begin(), cpu_rates.end());
  std::printf("median CPU: %.2f M accesses/s\n",
              cpu_rates[cpu_rates.size() / 2] / 1e6);
  std::sort(rates.begin(), rates.end());
  std::printf("median wall: %.2f M accesses/s (%llu accesses, %llu keys, zipfian 0.99)\n",
              rates[rates.size() / 2] / 1e6,
              static_cast<unsigned long long>(accesses),
              static_cast<unsigned long long>(keys));
  std::printf("memory: %.1f bytes per tracked entry (%zu entries, %zu bytes)\n",
              static_cast<double>(memory) / entries, entries, memory);
  for (size_t i = 0; i < capacities.size(); ++i) {
    std::printf("hit ratio at %llu blocks: %.4f\n",
                static_cast<unsigned long long>(capacities[i] / kBlockBytes),
                static_cast<double>(hits[i]) / accesses);
  }
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) { return symbiosis::Main(argc, argv); }
