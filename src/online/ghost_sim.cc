#include "online/ghost_sim.h"

#include <algorithm>
#include <cmath>

#include "symbiosis/page_cache_model.h"

namespace symbiosis {

GhostSim::GhostSim(const GhostSimOptions& options, const Sampler* sampler)
    : options_(options), sampler_(sampler) {}

GhostSim::~GhostSim() = default;

uint64_t GhostSim::Scaled(uint64_t bytes) const {
  return static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * sampler_->rate()));
}

void GhostSim::Begin(const std::vector<uint64_t>& candidates) {
  End();
  candidates_ = candidates;
  for (const uint64_t ma : candidates) app_limit_.push_back(Scaled(ma));
  app_misses_.assign(candidates.size(), 0);
  stages_.assign(candidates.size(), StageCounts{});
  app_ = std::make_unique<GhostLru>(Scaled(options_.memory_bytes),
                                    GhostLru::Options{.headroom = kAppGhostHeadroom});
  PageCacheOptions page;
  page.capacity_bytes = ScaledKernelBytes(candidates.front());
  page.max_readahead_pages = options_.max_readahead_pages;
  page.balance_scale = sampler_->scale();
  page.sample = sampler_->rate() < 1 ? sampler_ : nullptr;
  kernel_ = NewKernelCache(options_.kernel_model, page);
  for (const auto& [file_id, bytes] : file_bytes_) kernel_->SetFileSize(file_id, bytes);
  stage_ = 0;
  measuring_ = false;
}

void GhostSim::SetStage(size_t stage, bool measuring) {
  if (!active()) return;
  stage_ = stage;
  measuring_ = measuring;
  kernel_->SetCapacity(ScaledKernelBytes(candidates_[stage]));
}

uint64_t GhostSim::ScaledKernelBytes(uint64_t ma_bytes) const {
  const int64_t bytes = static_cast<int64_t>(options_.memory_bytes) -
                        static_cast<int64_t>(ma_bytes) + kernel_offset_;
  return bytes > 0 ? Scaled(static_cast<uint64_t>(bytes)) : 0;
}

bool GhostSim::CheckWarm() {
  if (!active()) return true;
  const auto filled = [](uint64_t used, uint64_t seen, uint64_t capacity) {
    return used >= capacity - capacity / 100 || used - std::min(used, seen) < capacity / 100;
  };
  const uint64_t app = app_->tracked_bytes();
  const uint64_t kernel = kernel_->used_bytes();
  const bool warm = filled(app, app_bytes_seen_, app_->capacity()) &&
                    filled(kernel, kernel_bytes_seen_, kernel_->capacity());
  app_bytes_seen_ = app;
  kernel_bytes_seen_ = kernel;
  return warm;
}

uint64_t GhostSim::StageSamples() const {
  return active() ? stages_[stage_].samples : 0;
}

CandidateCounts GhostSim::Counts(size_t stage) const {
  CandidateCounts c;
  c.stage_samples = stages_[stage].samples;
  c.kernel_reads = stages_[stage].kernel_reads;
  c.kernel_misses = stages_[stage].kernel_misses;
  c.app_misses = app_misses_[stage];
  return c;
}

void GhostSim::End() {
  candidates_.clear();
  app_limit_.clear();
  app_misses_.clear();
  stages_.clear();
  app_.reset();
  kernel_.reset();
  app_bytes_seen_ = 0;
  kernel_bytes_seen_ = 0;
}

void GhostSim::Access(const Block& block) {
  if (!active()) return;
  const uint64_t distance = app_->Access(block.key(), block.mem_size);
  if (measuring_) {
    ++stages_[stage_].samples;
    for (size_t i = 0; i < app_limit_.size(); i++) app_misses_[i] += distance > app_limit_[i];
  }
  if (distance <= app_limit_[stage_]) return;  // an application hit
  const bool hit = kernel_->capacity() >= kPageSize && kernel_->Read(block);
  if (measuring_) {
    ++stages_[stage_].kernel_reads;
    stages_[stage_].kernel_misses += !hit;
  }
}

void GhostSim::DropFile(uint64_t file_id) {
  file_bytes_.erase(file_id);
  if (active()) kernel_->DropFile(file_id);
}

void GhostSim::SetFileSize(uint64_t file_id, uint64_t bytes) {
  file_bytes_[file_id] = bytes;
  if (active()) kernel_->SetFileSize(file_id, bytes);
}

size_t GhostSim::MemoryUsage() const {
  // A hash node per file: two words of value, one of link, one of bucket.
  const size_t files = file_bytes_.size() * 4 * sizeof(uint64_t);
  if (!active()) return files;
  return files + app_->MemoryUsage() + kernel_->MemoryUsage() +
         (app_limit_.size() + app_misses_.size()) * sizeof(uint64_t) +
         stages_.size() * sizeof(StageCounts);
}

}  // namespace symbiosis
