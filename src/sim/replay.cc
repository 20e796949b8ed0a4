#include "symbiosis/replay.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "symbiosis/error.h"
#include "model/ghost_lru.h"
#include "model/page_cache_model.h"
#include "sim/progress.h"

namespace symbiosis {
namespace {

// The simulated engine's two caches. The application cache is a GhostLru
// bounded at M_a: it tracks exactly the resident set of an LRU cache of
// that size, so an access hits iff its stack distance fits.
class SimulatedEngine final : public Resizer {
 public:
  SimulatedEngine(const ReplayOptions& options, uint64_t memory)
      : memory_(memory), app_(std::make_unique<GhostLru>(0)) {
    PageCacheOptions page;
    page.capacity_bytes = memory;
    page.max_readahead_pages = options.max_readahead_pages;
    kernel_ = NewKernelCache(options.kernel, page);
  }

  // The kernel takes the rest of the budget; shrinking first keeps the
  // sum within M.
  void SetAppCacheCapacity(uint64_t bytes) override {
    if (bytes > app_bytes_) {
      kernel_->SetCapacity(memory_ - bytes);
      app_->SetCapacity(bytes);
    } else {
      app_->SetCapacity(bytes);
      kernel_->SetCapacity(memory_ - bytes);
    }
    app_bytes_ = bytes;
  }

  bool AppAccess(const Block& block) {
    return app_->Access(block.key(), block.mem_size) <= app_bytes_;
  }
  void SetFileSize(uint64_t file_id, uint64_t bytes) { kernel_->SetFileSize(file_id, bytes); }
  bool KernelRead(const Block& block) {
    return kernel_->capacity() >= kPageSize && kernel_->Read(block);
  }
  uint64_t ma_bytes() const { return app_bytes_; }

 private:
  const uint64_t memory_;
  uint64_t app_bytes_ = 0;
  std::unique_ptr<GhostLru> app_;
  std::unique_ptr<KernelCache> kernel_;
};

}  // namespace

ReplayResult RunReplay(const BlockTrace& trace, const ReplayOptions& options) {
  CheckBlockTrace(trace);
  if (options.controller.memory_bytes == 0) {
    throw InputError("replay needs the memory budget M (--memory), e.g. --memory 1GiB");
  }
  if (options.timeline_accesses == 0) {
    throw InputError("replay timeline interval must be at least 1 access");
  }
  CheckMissCosts(options.costs);
  CheckMaxReadahead(options.max_readahead_pages);
  const uint64_t memory = options.controller.memory_bytes;
  SimulatedEngine engine(options, memory);
  // A replay is one thread with simulated costs: this process's CPU load
  // says nothing about the engine's, so candidates are ranked by L_e, and
  // no move is measured (trials and verifications time the process).
  ControllerConfig config = options.controller;
  config.model_cpu_load = false;
  config.verify_moves = false;
  Controller controller(config, &engine);
  // A file ends where its last block does (a trace knows no more): the
  // simulated page cache and the Controller's ghost stop read-ahead there,
  // as Linux stops at the end of a file.
  std::unordered_map<uint64_t, uint64_t> file_end;
  for (const Block& b : trace.blocks) {
    uint64_t& end = file_end[b.file_id];
    end = std::max(end, b.offset + b.disk_size);
  }
  for (const auto& [file_id, bytes] : file_end) {
    engine.SetFileSize(file_id, bytes);
    controller.RecordFileSize(file_id, bytes);
  }

  const uint64_t ca_ns = static_cast<uint64_t>(options.costs.app_miss * 1000);
  const uint64_t ck_ns = static_cast<uint64_t>(options.costs.second_tier_miss * 1000);
  ReplayResult result;
  struct {
    uint64_t accesses = 0, app_hits = 0, reads = 0, read_hits = 0;
  } interval, total;
  auto close_interval = [&](uint64_t end_access) {
    ReplayPoint p;
    p.end_access = end_access;
    p.hit_app = static_cast<double>(interval.app_hits) / interval.accesses;
    p.hit_second_tier = interval.reads ? static_cast<double>(interval.read_hits) / interval.reads : 1;
    p.latency = ExpectedLatency(p.hit_app, p.hit_second_tier, options.costs);
    p.ma_bytes = engine.ma_bytes();
    p.state = controller.Stats().state;
    result.timeline.push_back(p);
    interval = {};
  };

  Progress progress("replaying", trace.accesses.size(), options.progress);
  const size_t n = trace.accesses.size();
  for (size_t i = 0; i < n; i++) {
    const Block& block = trace.blocks[trace.accesses[i]];
    const bool app_hit = engine.AppAccess(block);
    controller.RecordAppAccess(block, app_hit);
    ++interval.accesses;
    interval.app_hits += app_hit;
    if (!app_hit) {
      const bool second_tier_hit = engine.KernelRead(block);
      controller.RecordRead(block, second_tier_hit, second_tier_hit ? ca_ns : ca_ns + ck_ns);
      ++interval.reads;
      interval.read_hits += second_tier_hit;
    }
    if (interval.accesses == options.timeline_accesses || i + 1 == n) {
      total.accesses += interval.accesses;
      total.app_hits += interval.app_hits;
      total.reads += interval.reads;
      total.read_hits += interval.read_hits;
      close_interval(i + 1);
    }
    if ((i + 1) % 65536 == 0) progress.Advance(65536);
  }
  progress.Advance(n % 65536);

  result.stats = controller.Stats();
  result.final_ma_bytes = engine.ma_bytes();
  const double ha = static_cast<double>(total.app_hits) / total.accesses;
  const double hk = total.reads ? static_cast<double>(total.read_hits) / total.reads : 1;
  result.mean_latency = ExpectedLatency(ha, hk, options.costs);
  return result;
}

}  // namespace symbiosis
