#include "symbiosis/two_level_study.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "symbiosis/error.h"
#include "model/ghost_lru.h"
#include "model/page_cache_model.h"
#include "sim/progress.h"
#include "sim/parallel.h"

namespace symbiosis {

namespace {

// An explicit byte LRU of block ordinals, for the exclusive hierarchy,
// which needs to know what the application cache evicts. Dense ordinals
// index flat arrays: no hashing.
class OrdinalLru {
 public:
  OrdinalLru(const std::vector<Block>& blocks, uint64_t capacity)
      : blocks_(blocks),
        capacity_(capacity),
        prev_(blocks.size(), kNone),
        next_(blocks.size(), kNone),
        resident_(blocks.size(), false) {}

  // Returns whether `b` was resident; makes it the most recent. Evicted
  // ordinals are passed to `evicted`.
  template <typename Evicted>
  bool Access(uint32_t b, Evicted&& evicted) {
    if (resident_[b]) {
      Unlink(b);
      PushFront(b);
      return true;
    }
    const uint32_t size = blocks_[b].mem_size;
    if (size > capacity_) return false;  // never fits: bypass
    PushFront(b);
    resident_[b] = true;
    used_ += size;
    while (used_ > capacity_) {
      const uint32_t victim = tail_;
      Unlink(victim);
      resident_[victim] = false;
      used_ -= blocks_[victim].mem_size;
      evicted(victim);
    }
    return false;
  }

  bool Contains(uint32_t b) const { return resident_[b]; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  void Unlink(uint32_t b) {
    if (prev_[b] != kNone) next_[prev_[b]] = next_[b]; else head_ = next_[b];
    if (next_[b] != kNone) prev_[next_[b]] = prev_[b]; else tail_ = prev_[b];
  }
  void PushFront(uint32_t b) {
    prev_[b] = kNone;
    next_[b] = head_;
    if (head_ != kNone) prev_[head_] = b; else tail_ = b;
    head_ = b;
  }

  const std::vector<Block>& blocks_;
  const uint64_t capacity_;
  uint64_t used_ = 0;
  uint32_t head_ = kNone, tail_ = kNone;
  std::vector<uint32_t> prev_, next_;
  std::vector<bool> resident_;
};

std::unique_ptr<KernelCache> MakeKernel(const StudyOptions& options, uint64_t bytes) {
  PageCacheOptions page;
  page.capacity_bytes = bytes;
  page.max_readahead_pages = options.max_readahead_pages;
  return NewKernelCache(options.kernel, page);
}

struct Counts {
  uint64_t reads = 0, app_hits = 0, kernel_reads = 0, second_tier_hits = 0;
};

SplitPoint Summarize(uint64_t ma, uint64_t mk, const Counts& c,
                     const MissCosts& costs) {
  SplitPoint p;
  p.ma_bytes = ma;
  p.mk_bytes = mk;
  p.hit_app = c.reads ? static_cast<double>(c.app_hits) / c.reads : 0;
  p.hit_second_tier = c.kernel_reads ? static_cast<double>(c.second_tier_hits) / c.kernel_reads : 0;
  p.second_tier_hits_per_read = c.reads ? static_cast<double>(c.second_tier_hits) / c.reads : 0;
  p.latency = ExpectedLatency(p.hit_app, p.hit_second_tier, costs);
  return p;
}

constexpr uint64_t kProgressChunk = 1 << 16;

// How many reads ahead the replays hint the kernel model (KernelCache::
// Prefetch): far enough for its memory to arrive, near enough to stay in
// the CPU cache.
constexpr size_t kPrefetchDistance = 8;

// Inclusive hierarchy: the application cache hits iff the access's stack
// distance fits M_a; every miss reads through the kernel model.
Counts ReplayInclusive(const BlockTrace& trace, const std::vector<uint64_t>& distance,
                       uint64_t ma, KernelCache* kernel, uint64_t warm, Progress* progress) {
  Counts c;
  const size_t n = trace.accesses.size();
  for (size_t i = 0; i < n; i++) {
    const size_t ahead = i + kPrefetchDistance;
    if (kernel != nullptr && ahead < n && distance[ahead] > ma) {
      kernel->Prefetch(trace.blocks[trace.accesses[ahead]]);
    }
    const bool counted = i >= warm;
    if (distance[i] <= ma) {
      c.app_hits += counted;
    } else {
      const bool hit = kernel != nullptr && kernel->Read(trace.blocks[trace.accesses[i]]);
      c.kernel_reads += counted;
      c.second_tier_hits += counted && hit;
    }
    if ((i + 1) % kProgressChunk == 0) progress->Advance(kProgressChunk);
  }
  c.reads = n - warm;
  progress->Advance(n % kProgressChunk);
  return c;
}

// Exclusive hierarchy: admission to the application cache drops the block
// from the kernel cache; an application eviction puts it back.
Counts ReplayExclusive(const BlockTrace& trace, uint64_t ma, KernelCache* kernel,
                       uint64_t warm, Progress* progress) {
  Counts c;
  OrdinalLru app(trace.blocks, ma);
  const size_t n = trace.accesses.size();
  for (size_t i = 0; i < n; i++) {
    if (kernel != nullptr && i + kPrefetchDistance < n) {
      kernel->Prefetch(trace.blocks[trace.accesses[i + kPrefetchDistance]]);
    }
    const bool counted = i >= warm;
    const uint32_t b = trace.accesses[i];
    bool second_tier_hit = false;
    const bool app_hit = app.Contains(b);
    if (!app_hit && kernel != nullptr) second_tier_hit = kernel->Read(trace.blocks[b]);
    app.Access(b, [&](uint32_t victim) {
      if (kernel != nullptr) kernel->Insert(trace.blocks[victim]);
    });
    if (!app_hit && kernel != nullptr && app.Contains(b)) kernel->Drop(trace.blocks[b]);
    if (app_hit) {
      c.app_hits += counted;
    } else {
      c.kernel_reads += counted;
      c.second_tier_hits += counted && second_tier_hit;
    }
    if ((i + 1) % kProgressChunk == 0) progress->Advance(kProgressChunk);
  }
  c.reads = n - warm;
  progress->Advance(n % kProgressChunk);
  return c;
}


void ValidateStudyOptions(const BlockTrace& trace, const StudyOptions& options) {
  CheckBlockTrace(trace);
  uint32_t smallest = UINT32_MAX;
  for (const Block& b : trace.blocks) smallest = std::min(smallest, b.mem_size);
  if (options.memory_bytes < smallest) {
    throw InputError("--memory " + std::to_string(options.memory_bytes) +
                     " bytes is smaller than one block (" + std::to_string(smallest) +
                     " bytes); give at least one block, e.g. 64MiB");
  }
  for (const uint64_t ma : options.splits) {
    if (ma > options.memory_bytes) {
      throw InputError("split M_a = " + std::to_string(ma) + " bytes exceeds M = " +
                       std::to_string(options.memory_bytes) + " bytes; give splits within M");
    }
  }
  if (options.splits.empty() && options.points < 2) {
    throw InputError("--points must be at least 2 (M_a = 0 and M_a = M)");
  }
  CheckWarmup(options.warmup);
  CheckMissCosts(options.costs);
  CheckMaxReadahead(options.max_readahead_pages);
}

}  // namespace


StudyResult RunTwoLevelStudy(const BlockTrace& trace, const StudyOptions& options) {
  ValidateStudyOptions(trace, options);
  const uint64_t m = options.memory_bytes;
  const size_t n = trace.accesses.size();
  const uint64_t warm = static_cast<uint64_t>(options.warmup * n);
  std::vector<uint64_t> splits = options.splits;
  if (splits.empty()) {
    const uint32_t last = options.points - 1;
    for (uint32_t i = 0; i <= last; i++) splits.push_back(m / last * i + (m % last) * i / last);
  }
  const size_t points = splits.size();

  Progress progress("simulating", static_cast<uint64_t>(points + 1) * n, options.progress);

  // One pass: stack distances answer the application cache at every M_a.
  std::vector<uint64_t> distance;
  if (!options.exclusive) {
    distance.resize(n);
    GhostLru ghost(m);
    std::vector<uint64_t> keys(kProgressChunk);
    std::vector<uint32_t> sizes(kProgressChunk);
    for (size_t begin = 0; begin < n; begin += kProgressChunk) {
      const size_t count = std::min<size_t>(kProgressChunk, n - begin);
      for (size_t i = 0; i < count; i++) {
        keys[i] = trace.accesses[begin + i];
        sizes[i] = trace.blocks[keys[i]].mem_size;
      }
      ghost.AccessBatch(keys.data(), sizes.data(), count, &distance[begin]);
      if (count == kProgressChunk) progress.Advance(kProgressChunk);
    }
  }
  progress.Advance(options.exclusive ? n : n % kProgressChunk);

  StudyResult result;
  result.points.resize(points);
  result.counted_accesses = n - warm;
  ParallelFor(points, options.threads, [&](size_t i) {
    const uint64_t ma = splits[i];
    const uint64_t mk = m - ma;
    std::unique_ptr<KernelCache> kernel = mk >= kPageSize ? MakeKernel(options, mk) : nullptr;
    const Counts c = options.exclusive
        ? ReplayExclusive(trace, ma, kernel.get(), warm, &progress)
        : ReplayInclusive(trace, distance, ma, kernel.get(), warm, &progress);
    result.points[i] = Summarize(ma, mk, c, options.costs);
  });

  result.best = *std::min_element(
      result.points.begin(), result.points.end(),
      [](const SplitPoint& a, const SplitPoint& b) { return a.latency < b.latency; });
  return result;
}

}  // namespace symbiosis
