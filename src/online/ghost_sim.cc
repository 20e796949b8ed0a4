#include "online/ghost_sim.h"

#include <algorithm>
#include <cmath>

#include "symbiosis/page_cache_model.h"

namespace symbiosis {

int SampledShardBits(int bits, double share) {
  return std::max(0, bits + static_cast<int>(std::lround(std::log2(share))));
}

GhostSim::GhostSim(const GhostSimOptions& options, const Sampler* sampler)
    : options_(options), sampler_(sampler) {}

GhostSim::~GhostSim() = default;

uint64_t GhostSim::Scaled(uint64_t bytes) const {
  return static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * share_));
}

void GhostSim::Begin(const std::vector<uint64_t>& candidates, size_t current) {
  End();
  share_ = CountedShare();
  share_fixed_ = false;
  candidates_ = candidates;
  current_bytes_ = candidates.at(current);
  for (const uint64_t ma : candidates) app_limit_.push_back(Scaled(ma));
  app_misses_.assign(candidates.size(), 0);
  stages_.assign(candidates.size(), StageCounts{});
  stage_ = 0;
  measuring_ = false;
  if (options_.rocksdb_tiers) {
    RocksDbCacheModelOptions tiers;
    tiers.primary_bytes = Scaled(current_bytes_);
    tiers.secondary_bytes = ScaledKernelBytes(current);
    tiers.primary_shard_bits = SampledShardBits(options_.primary_shard_bits, share_);
    tiers.secondary_shard_bits = SampledShardBits(options_.secondary_shard_bits, share_);
    tiers.entry_metadata_bytes = options_.entry_metadata_bytes;
    tiers.read_charge_overhead = read_charge_overhead_;
    tiers_ = std::make_unique<RocksDbCacheModel>(tiers);
    tiers_->SetFastFill(true);  // until the warm-up ends: see ghost_sim.h
    return;
  }
  if (options_.app_cache_k == 0) {
    app_ = std::make_unique<GhostLru>(Scaled(options_.memory_bytes),
                                      GhostLru::Options{.headroom = kAppGhostHeadroom});
  } else {
    KrrStackOptions krr;
    krr.unit = CacheUnit::kBytes;
    krr.k = options_.app_cache_k;
    krr.capacity = Scaled(options_.memory_bytes);
    app_klru_ = std::make_unique<KrrStack>(krr);
  }
  PageCacheOptions page;
  page.capacity_bytes = ScaledKernelBytes(0);
  page.max_readahead_pages = options_.max_readahead_pages;
  page.balance_scale = 1 / share_;  // balance rule only; not rescaled
  page.sample = sampler_->rate() < 1 ? sampler_ : nullptr;
  kernel_ = NewKernelCache(options_.kernel_model, page);
  for (const auto& [file_id, size] : files_) kernel_->SetFileSize(file_id, size.bytes);
}

double GhostSim::CountedShare() const {
  return sampled_bytes_ > 0 ? static_cast<double>(sampled_bytes_) / file_bytes_ : sampler_->rate();
}

// An engine opens its tables as the workload first reads them, so the
// sizes of the first round's files arrive during its warm-up: the share is
// counted again, and the ghosts rescaled, when measuring starts.
void GhostSim::SetStage(size_t stage, bool measuring) {
  if (!active()) return;
  stage_ = stage;
  measuring_ = measuring;
  if (measuring && !share_fixed_) {
    share_fixed_ = true;
    share_ = CountedShare();
    for (size_t i = 0; i < candidates_.size(); i++) app_limit_[i] = Scaled(candidates_[i]);
    if (!tiers_) SetAppCapacity(Scaled(options_.memory_bytes));
  }
  if (tiers_) {
    // The first stage starts at the end of the round's warm-up, which is
    // kept: every candidate starts from it.
    if (!tiers_snapshot_) {
      tiers_->SetFastFill(false);
      tiers_snapshot_ = std::make_unique<RocksDbCacheModel>(*tiers_);
    } else if (stage != tiers_stage_) {
      *tiers_ = *tiers_snapshot_;
    }
    if (stage != tiers_stage_) {
      tiers_->Resettle(Scaled(candidates_[stage]), ScaledKernelBytes(stage));
    }
    tiers_stage_ = stage;
    return;
  }
  kernel_->SetCapacity(ScaledKernelBytes(stage));
}

// A grown application cache costs the engine more than its capacity
// (allocator headers, fragmentation), or less where the cache fills only
// part of it (WiredTiger; a negative overhead), and the difference comes
// out of the page cache's room; the offset measured at the current M_a
// already holds the current cost. A shrink is not credited: a fragmented
// heap does not give memory back at once.
double GhostSim::KernelRoomBytes(size_t stage) const {
  const uint64_t ma_bytes = candidates_[stage];
  const double growth = ma_bytes > current_bytes_ ? static_cast<double>(ma_bytes - current_bytes_) : 0;
  return static_cast<double>(options_.memory_bytes) - static_cast<double>(ma_bytes) +
         static_cast<double>(kernel_offset_) - options_.app_cache_overhead * growth;
}

// The memory cgroup's room at a candidate: what the page cache would have
// if the engine's memory outside its cache grew by heap_growth_share of
// the cache's growth. Not the page cache model's overhead, which also
// stands for the cliff's other costs (0.25 in LevelDB): the heap itself
// grew by 0.048-0.056 of a LevelDB block cache's growth
// (docs/decisions/budget-room.md).
int64_t GhostSim::BudgetRoomBytes(size_t stage) const {
  if (!offset_measured_) return INT64_MAX;
  const uint64_t ma_bytes = candidates_[stage];
  const double growth = ma_bytes > current_bytes_ ? static_cast<double>(ma_bytes - current_bytes_) : 0;
  return static_cast<int64_t>(std::floor(
      static_cast<double>(options_.memory_bytes) - static_cast<double>(ma_bytes) +
      static_cast<double>(kernel_offset_) - options_.heap_growth_share * growth));
}

uint64_t GhostSim::ScaledKernelBytes(size_t stage) const {
  const double bytes = KernelRoomBytes(stage);
  return bytes > 0 ? Scaled(static_cast<uint64_t>(bytes)) : 0;
}

bool GhostSim::CheckWarm() {
  if (!active()) return true;
  const auto filled = [](uint64_t used, uint64_t seen, uint64_t capacity) {
    return used >= capacity - capacity / 100 || used - std::min(used, seen) < capacity / 100;
  };
  // The application ghost (or the block cache) and the kernel ghost (or
  // the compressed cache): bytes held, of how many.
  uint64_t app = 0, app_capacity = 0, kernel = 0, kernel_capacity = 0;
  if (tiers_) {
    app = tiers_->primary_used();
    app_capacity = tiers_->primary_capacity();
    kernel = tiers_->secondary_used();
    kernel_capacity = tiers_->secondary_capacity();
  } else {
    app = AppTracked();
    app_capacity = AppCapacity();
    kernel = kernel_->used_bytes();
    kernel_capacity = kernel_->capacity();
  }
  const bool warm = filled(app, app_bytes_seen_, app_capacity) &&
                    filled(kernel, kernel_bytes_seen_, kernel_capacity);
  app_bytes_seen_ = app;
  kernel_bytes_seen_ = kernel;
  return warm;
}

uint64_t GhostSim::StageSamples() const {
  return active() ? stages_[stage_].samples : 0;
}

// Cold misses are kColdMiss (the maximum) in both ghosts: a miss at every
// candidate. Above the page cache every block the application cache holds
// was read from disk, and is charged so.
uint64_t GhostSim::AppAccess(const Block& block) {
  const uint64_t charge = uint64_t{block.mem_size} + read_charge_overhead_;
  return app_ ? app_->Access(block.key(), charge) : app_klru_->Access(block.key(), charge);
}

void GhostSim::SetReadChargeOverhead(uint32_t bytes) {
  read_charge_overhead_ = bytes;
  if (tiers_) tiers_->SetReadChargeOverhead(bytes);
  if (tiers_snapshot_) tiers_snapshot_->SetReadChargeOverhead(bytes);
}

uint64_t GhostSim::AppTracked() const {
  return app_ ? app_->tracked_bytes() : app_klru_->tracked();
}

uint64_t GhostSim::AppCapacity() const {
  return app_ ? app_->capacity() : app_klru_->capacity();
}

void GhostSim::SetAppCapacity(uint64_t bytes) {
  if (app_) {
    app_->SetCapacity(bytes);
  } else {
    app_klru_->SetCapacity(bytes);
  }
}

CandidateCounts GhostSim::Counts(size_t stage) const {
  CandidateCounts c;
  c.stage_samples = stages_[stage].samples;
  c.kernel_reads = stages_[stage].kernel_reads;
  c.kernel_misses = stages_[stage].kernel_misses;
  c.app_misses = app_misses_[stage];
  c.app_misses_in_stage = tiers_ != nullptr;
  c.second_tier_stores = stages_[stage].second_tier_stores;
  c.budget_room_bytes = BudgetRoomBytes(stage);
  return c;
}

void GhostSim::End() {
  candidates_.clear();
  app_limit_.clear();
  app_misses_.clear();
  stages_.clear();
  app_.reset();
  app_klru_.reset();
  kernel_.reset();
  tiers_.reset();
  tiers_snapshot_.reset();
  tiers_stage_ = kNoStage;
  app_bytes_seen_ = 0;
  kernel_bytes_seen_ = 0;
}

void GhostSim::Access(const Block& block) {
  if (!active()) return;
  if (tiers_) {
    const uint64_t stores = tiers_->stores();
    const RocksDbCacheModel::Served served = tiers_->Access(block);
    if (!measuring_) return;
    StageCounts& stage = stages_[stage_];
    ++stage.samples;
    stage.second_tier_stores += tiers_->stores() - stores;
    if (served == RocksDbCacheModel::Served::kPrimary) return;
    ++app_misses_[stage_];
    ++stage.kernel_reads;
    stage.kernel_misses += served == RocksDbCacheModel::Served::kDevice;
    return;
  }
  const uint64_t distance = AppAccess(block);
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
  const auto it = files_.find(file_id);
  if (it != files_.end()) {
    file_bytes_ -= it->second.bytes;
    sampled_bytes_ -= it->second.sampled;
    files_.erase(it);
  }
  if (kernel_) kernel_->DropFile(file_id);
}

void GhostSim::SetFileSize(uint64_t file_id, uint64_t bytes) {
  FileBytes& size = files_[file_id];
  file_bytes_ += bytes - size.bytes;
  const uint64_t sampled = sampler_->SampledBytes(file_id, bytes);
  sampled_bytes_ += sampled - size.sampled;
  size = FileBytes{bytes, sampled};
  if (kernel_) kernel_->SetFileSize(file_id, bytes);
}

size_t GhostSim::MemoryUsage() const {
  // A hash node per file: three words of value, one of link, one of bucket.
  const size_t files = files_.size() * 5 * sizeof(uint64_t);
  if (!active()) return files;
  const size_t ghosts = tiers_ ? tiers_->MemoryUsage() +
                                     (tiers_snapshot_ ? tiers_snapshot_->MemoryUsage() : 0)
                                : (app_ ? app_->MemoryUsage() : app_klru_->MemoryUsage()) +
                                      kernel_->MemoryUsage();
  return files + ghosts +
         (app_limit_.size() + app_misses_.size()) * sizeof(uint64_t) +
         stages_.size() * sizeof(StageCounts);
}

}  // namespace symbiosis
