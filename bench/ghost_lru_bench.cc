// ghost_lru_bench: hit-curve construction and GhostLru throughput and
// memory on a scrambled zipfian trace (YCSB's generator, theta 0.99) of
// 4 KiB blocks.
//
//   ghost_lru_bench [--accesses N] [--keys K] [--repeats R]
//
// Each repeat times three ways to the same stack distances, on a trace
// generated before timing:
//   curve:  BuildHitCurve, the whole hit curve (the headline figure);
//   batch:  GhostLru::AccessBatch, the distances only;
//   access: GhostLru::Access, one call per access, as an online user does.
// Prints accesses/s of each (wall clock and CPU time of the thread; on a
// shared machine the CPU figure is the stabler one) and their medians,
// bytes of heap per tracked entry, and the hit ratio at a few capacities
// by each path (a checksum that also keeps the work observable).

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

#include "model/ghost_lru.h"
#include "base/hash.h"
#include "model/hit_curve.h"

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

// Accesses/s of each repeat, by wall clock and by CPU time.
struct Rates {
  std::vector<double> wall, cpu;
};

// Runs `work` and records its rate over `accesses`.
template <typename Work>
void Time(uint64_t accesses, Rates* rates, const Work& work) {
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  work();
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  rates->wall.push_back(accesses / elapsed.count());
  rates->cpu.push_back(accesses / (ThreadCpuSeconds() - cpu_start));
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int Main(int argc, char** argv) {
  const uint64_t accesses = FlagValue(argc, argv, "--accesses", 10'000'000);
  const uint64_t keys = FlagValue(argc, argv, "--keys", 1'000'000);
  const uint64_t repeats = FlagValue(argc, argv, "--repeats", 5);

  // Scrambled: a rank's key is its hash, so hot keys are spread out.
  ZipfianRanks ranks(keys, 0.99, 42);
  std::vector<uint64_t> trace(accesses);
  for (uint64_t& key : trace) key = Mix64(ranks.Next());
  const std::vector<uint32_t> sizes(accesses, kBlockBytes);

  const std::vector<uint64_t> capacities = {keys / 100 * kBlockBytes,
                                            keys / 10 * kBlockBytes,
                                            keys / 2 * kBlockBytes};
  const char* const kPaths[] = {"curve", "batch", "access"};
  Rates rates[3];
  // hits[path][capacity], of the last repeat.
  std::vector<std::vector<uint64_t>> hits(3, std::vector<uint64_t>(capacities.size()));
  std::vector<uint64_t> distances(accesses);
  size_t entries = 0, memory = 0;
  for (uint64_t r = 0; r < repeats; ++r) {
    HitCurve curve;
    Time(accesses, &rates[0], [&] {
      curve = BuildHitCurve(trace.data(), sizes.data(), accesses);
    });
    for (size_t i = 0; i < capacities.size(); ++i) {
      hits[0][i] = static_cast<uint64_t>(curve.HitRatio(capacities[i]) * accesses + 0.5);
    }

    Time(accesses, &rates[1], [&] {
      GhostLru ghost;
      ghost.AccessBatch(trace.data(), sizes.data(), accesses, distances.data());
    });
    std::fill(hits[1].begin(), hits[1].end(), 0);
    for (uint64_t distance : distances) {
      for (size_t i = 0; i < capacities.size(); ++i) hits[1][i] += distance <= capacities[i];
    }

    GhostLru ghost;
    std::fill(hits[2].begin(), hits[2].end(), 0);
    Time(accesses, &rates[2], [&] {
      for (uint64_t key : trace) {
        const uint64_t distance = ghost.Access(key, kBlockBytes);
        for (size_t i = 0; i < capacities.size(); ++i) hits[2][i] += distance <= capacities[i];
      }
    });
    entries = ghost.entries();
    memory = ghost.MemoryUsage();

    std::printf("repeat %llu:", static_cast<unsigned long long>(r + 1));
    for (int p = 0; p < 3; ++p) {
      std::printf(" %s %.2f/%.2f", kPaths[p], rates[p].cpu.back() / 1e6,
                  rates[p].wall.back() / 1e6);
    }
    std::printf(" M accesses/s (CPU/wall)\n");
  }
  std::printf("%llu accesses, %llu keys, zipfian 0.99, %llu repeats:\n",
              static_cast<unsigned long long>(accesses),
              static_cast<unsigned long long>(keys),
              static_cast<unsigned long long>(repeats));
  for (int p = 0; p < 3; ++p) {
    std::printf("median %-6s %6.2f M accesses/s CPU, %6.2f wall\n", kPaths[p],
                Median(rates[p].cpu) / 1e6, Median(rates[p].wall) / 1e6);
  }
  std::printf("memory: %.1f bytes per tracked entry (%zu entries, %zu bytes)\n",
              static_cast<double>(memory) / entries, entries, memory);
  for (size_t i = 0; i < capacities.size(); ++i) {
    std::printf("hit ratio at %llu blocks:",
                static_cast<unsigned long long>(capacities[i] / kBlockBytes));
    for (int p = 0; p < 3; ++p) {
      std::printf(" %s %.4f", kPaths[p], static_cast<double>(hits[p][i]) / accesses);
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) { return symbiosis::Main(argc, argv); }
