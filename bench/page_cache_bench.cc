// page_cache_bench: page accesses per second of the kernel page-cache
// model, and its memory per resident page.
//
// Usage: page_cache_bench [--cache_pages=N] [--accesses=N] [--repeats=N]
//
// Without --cache_pages it runs two caches: 32768 pages (128 MiB, an 8 GiB
// budget sampled at 1/64) and 262144 pages (1 GiB, what the offline
// simulator replays unsampled). Each case reads over data twice as large as
// the cache (so about half the reads miss and evict), after a warm-up pass
// that fills the cache:
//  - random, sequential: one-page reads over 16 files, random pages or
//    each file front to back in turn;
//  - blocks: random reads of whole blocks of a DataLayout (about 2 KiB
//    compressed blocks packed back to back, so most start mid-page and some
//    span two pages) through KernelCache::Read, as the simulator replays a
//    trace; "blocks+pf" also calls KernelCache::Prefetch for the block
//    read kPrefetchDistance reads later, as the simulator's replay loops do.
// Models: "linux" (two lists, refault activation, read-ahead) and "lru"
// (one list, no read-ahead). Throughput counts the pages the reads request,
// not read-ahead pages; the median of --repeats runs (default 5).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/hash.h"
#include "symbiosis/layout.h"
#include "model/page_cache_model.h"

namespace symbiosis {
namespace {

constexpr uint64_t kFiles = 16;
constexpr uint64_t kPrefetchDistance = 8;  // as in the simulator's replays

struct Config {
  uint64_t cache_pages = 0;  // 0: both default sizes
  uint64_t accesses = 4000000;
  uint64_t repeats = 5;
};

enum class Pattern { kRandom, kSequential, kBlocks, kBlocksPrefetch };

const char* PatternName(Pattern pattern) {
  switch (pattern) {
    case Pattern::kRandom: return "random";
    case Pattern::kSequential: return "sequential";
    case Pattern::kBlocks: return "blocks";
    case Pattern::kBlocksPrefetch: return "blocks+pf";
  }
  return "";
}

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

PageCacheOptions Options(uint64_t cache_pages, bool linux_model) {
  PageCacheOptions options;
  options.capacity_bytes = cache_pages * kPageSize;
  options.two_queue = linux_model;
  options.refault_activation = linux_model;
  options.readahead = linux_model;
  return options;
}

Result Finish(const PageCacheModel& cache, uint64_t page_accesses,
              uint64_t hits, uint64_t reads,
              std::chrono::steady_clock::time_point start) {
  const std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  const uint64_t resident =
      std::max<uint64_t>(cache.used_bytes() / kPageSize, 1);
  return {page_accesses / elapsed.count(),
          static_cast<double>(cache.MemoryUsage()) / resident,
          static_cast<double>(hits) / reads};
}

Result RunPages(const Config& config, uint64_t cache_pages, Pattern pattern,
                bool linux_model) {
  PageCacheModel cache(Options(cache_pages, linux_model));
  const uint64_t pages = 2 * cache_pages;
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
  return Finish(cache, config.accesses, hits, config.accesses, start);
}

// Random block reads; runs until `config.accesses` pages were requested.
Result RunBlocks(const Config& config, uint64_t cache_pages,
                 const DataLayout& layout, bool prefetch) {
  PageCacheModel cache(Options(cache_pages, /*linux_model=*/true));
  KernelCache& kernel = cache;
  const uint64_t blocks = layout.num_blocks();
  for (uint64_t b = 0; b < blocks; ++b) kernel.Read(layout.block(b));
  // The block of the i-th timed read.
  auto nth = [&](uint64_t i) -> const Block& {
    return layout.block(Mix64(i) % blocks);
  };
  uint64_t pages = 0, hits = 0, reads = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; pages < config.accesses; ++i) {
    if (prefetch) kernel.Prefetch(nth(i + kPrefetchDistance));
    const Block& block = nth(i);
    hits += kernel.Read(block);
    pages += block.page_count();
    ++reads;
  }
  return Finish(cache, pages, hits, reads, start);
}

void Run(const Config& config, uint64_t cache_pages) {
  LayoutOptions layout_options;  // about 2 KiB per block on disk
  layout_options.data_bytes = 4 * cache_pages * kPageSize;
  const DataLayout layout(layout_options);
  std::printf("cache %llu pages; one-page reads over %llu pages in %llu "
              "files, blocks: %llu blocks of ~2 KiB in %llu MiB; %llu page "
              "accesses per run, median of %llu runs\n",
              static_cast<unsigned long long>(cache_pages),
              static_cast<unsigned long long>(2 * cache_pages),
              static_cast<unsigned long long>(kFiles),
              static_cast<unsigned long long>(layout.num_blocks()),
              static_cast<unsigned long long>(layout.disk_bytes() >> 20),
              static_cast<unsigned long long>(config.accesses),
              static_cast<unsigned long long>(config.repeats));
  std::printf("%-7s %-11s %16s %12s %16s\n", "model", "pattern",
              "accesses/s", "hit ratio", "bytes/res.page");
  struct Case {
    bool linux_model;
    Pattern pattern;
  };
  for (const Case& c : {Case{true, Pattern::kRandom},
                        Case{true, Pattern::kSequential},
                        Case{true, Pattern::kBlocks},
                        Case{true, Pattern::kBlocksPrefetch},
                        Case{false, Pattern::kRandom},
                        Case{false, Pattern::kSequential}}) {
    std::vector<Result> runs;
    for (uint64_t r = 0; r < config.repeats; ++r) {
      runs.push_back(
          c.pattern == Pattern::kBlocks || c.pattern == Pattern::kBlocksPrefetch
              ? RunBlocks(config, cache_pages, layout,
                          c.pattern == Pattern::kBlocksPrefetch)
              : RunPages(config, cache_pages, c.pattern, c.linux_model));
    }
    std::sort(runs.begin(), runs.end(), [](const Result& a, const Result& b) {
      return a.accesses_per_second < b.accesses_per_second;
    });
    const Result& median = runs[runs.size() / 2];
    std::printf("%-7s %-11s %16.0f %12.3f %16.1f\n",
                c.linux_model ? "linux" : "lru", PatternName(c.pattern),
                median.accesses_per_second, median.hit_ratio,
                median.bytes_per_resident_page);
    std::fflush(stdout);
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
        !symbiosis::ParseFlag(argv[i], "--accesses", &config.accesses) &&
        !symbiosis::ParseFlag(argv[i], "--repeats", &config.repeats)) {
      std::fprintf(stderr,
                   "page_cache_bench: bad argument '%s'; usage: "
                   "page_cache_bench [--cache_pages=N] [--accesses=N] "
                   "[--repeats=N]\n",
                   argv[i]);
      return 2;
    }
  }
  if (config.cache_pages != 0) {
    symbiosis::Run(config, config.cache_pages);
  } else {
    symbiosis::Run(config, 32768);
    symbiosis::Run(config, 262144);
  }
  return 0;
}
