// page_cache_bench: page accesses per second of the kernel page-cache
// model, and its memory per resident page.
//
// Usage: page_cache_bench [--cache_pages=N] [--accesses=N]
//
// Each case reads one page per call over 16 files holding twice as many
// pages as the cache (so about half the reads miss and evict), after a
// warm-up pass that fills the cache. Patterns: random pages, and each file
// read front to back in turn. Models: "linux" (two lists, refault
// activation, read-ahead) and "lru" (one list, no read-ahead). Throughput
// counts requested pages, not read-ahead pages; the median of 5 runs.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "symbiosis/hash.h"
#include "symbiosis/page_cache_model.h"

namespace symbiosis {
namespace {

constexpr int kRepeats = 5;
constexpr uint64_t kFiles = 16;

struct Config {
  // 128 MiB modelled: an 8 GiB budget sampled at R = 1/64.
  uint64_t cache_pages = 32768;
  uint64_t accesses = 4000000;
};

enum class Pattern { kRandom, kSequential };

// Page number `i` of the pattern over `pages` pages spread over kFiles.
struct Access {
  uint64_t file;
  uint64_t page;
};

Access Nth(Pattern pattern, uint64_t i, uint64_t pages) {
  const uint64_t per_file = pages / kFiles;
  if (pattern == Pattern::kRandom) {
    const uint64_t r = Mix64(i) % pages;
    return {r / per_file, r % per_file};
  }
  const uint64_t n = i % pages;
  return {n / per_file, n % per_file};
}

struct Result {
  double accesses_per_second;
  double bytes_per_resident_page;
  double hit_ratio;
};

Result RunOnce(const Config& config, Pattern pattern, bool linux_model) {
  PageCacheOptions options;
  options.capacity_bytes = config.cache_pages * kPageSize;
  options.two_queue = linux_model;
  options.refault_activation = linux_model;
  options.readahead = linux_model;
  PageCacheModel cache(options);
  const uint64_t pages = 2 * config.cache_pages;
  for (uint64_t i = 0; i < pages; ++i) {  // warm-up
    const Access a = Nth(pattern, i, pages);
    cache.AccessPages(a.file, a.page, 1);
  }
  uint64_t hits = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = pages; i < pages + config.accesses; ++i) {
    const Access a = Nth(pattern, i, pages);
    hits += cache.AccessPages(a.file, a.page, 1).hit_pages;
  }
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  const uint64_t resident =
      std::max<uint64_t>(cache.used_bytes() / kPageSize, 1);
  return {config.accesses / elapsed.count(),
          static_cast<double>(cache.MemoryUsage()) / resident,
          static_cast<double>(hits) / config.accesses};
}

void Run(const Config& config) {
  std::printf("cache %llu pages, %llu pages in %llu files, %llu one-page "
              "reads per run, median of %d runs\n",
              static_cast<unsigned long long>(config.cache_pages),
              static_cast<unsigned long long>(2 * config.cache_pages),
              static_cast<unsigned long long>(kFiles),
              static_cast<unsigned long long>(config.accesses), kRepeats);
  std::printf("%-7s %-11s %16s %12s %16s\n", "model", "pattern",
              "accesses/s", "hit ratio", "bytes/res.page");
  for (bool linux_model : {true, false}) {
    for (Pattern pattern : {Pattern::kRandom, Pattern::kSequential}) {
      std::vector<Result> runs;
      for (int r = 0; r < kRepeats; ++r) {
        runs.push_back(RunOnce(config, pattern, linux_model));
      }
      std::sort(runs.begin(), runs.end(), [](const Result& a, const Result& b) {
        return a.accesses_per_second < b.accesses_per_second;
      });
      const Result& median = runs[kRepeats / 2];
      std::printf("%-7s %-11s %16.0f %12.3f %16.1f\n",
                  linux_model ? "linux" : "lru",
                  pattern == Pattern::kRandom ? "random" : "sequential",
                  median.accesses_per_second, median.hit_ratio,
                  median.bytes_per_resident_page);
    }
  }
}

bool ParseFlag(const char* arg, const char* name, uint64_t* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  char* end = nullptr;
  *value = std::strtoull(arg + length + 1, &end, 10);
  return *end == '\0' && *value > 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) {
  symbiosis::Config config;
  for (int i = 1; i < argc; ++i) {
    if (!symbiosis::ParseFlag(argv[i], "--cache_pages", &config.cache_pages) &&
        !symbiosis::ParseFlag(argv[i], "--accesses", &config.accesses)) {
      std::fprintf(stderr,
                   "page_cache_bench: bad argument '%s'; usage: "
                   "page_cache_bench [--cache_pages=N] [--accesses=N]\n",
                   argv[i]);
      return 2;
    }
  }
  symbiosis::Run(config);
  return 0;
}
