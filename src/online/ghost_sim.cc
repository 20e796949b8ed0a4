#include "online/ghost_sim.h"

#include <algorithm>
#include <cmath>

#include "model/page_cache_model.h"

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
  const size_t ghosts = options_.parallel_candidates ? candidates.size() : 1;
  for (size_t i = 0; i < ghosts; i++) {
    PageCacheOptions page;
    page.capacity_bytes = ScaledKernelBytes(i);
    page.max_readahead_pages = options_.max_readahead_pages;
    page.balance_scale = 1 / share_;  // balance rule only; not rescaled
    page.sample = sampler_->rate() < 1 ? sampler_ : nullptr;
    kernels_.push_back(NewKernelCache(options_.kernel_model, page));
    for (const auto& [file_id, size] : files_) kernels_.back()->SetFileSize(file_id, size.bytes);
  }
}

double GhostSim::CountedShare() const {
  return sampled_bytes_ > 0 ? static_cast<double>(sampled_bytes_) / file_bytes_ : sampler_->rate();
}

// An engine opens its tables as the workload first reads them, so the
// sizes of the first round's files arrive during its warm-up: the share is
// counted again, and the ghosts rescaled, when measuring starts.
void GhostSim::FixShare() {
  share_fixed_ = true;
  share_ = CountedShare();
  for (size_t i = 0; i < candidates_.size(); i++) app_limit_[i] = Scaled(candidates_[i]);
  if (app_ || app_klru_) SetAppCapacity(Scaled(options_.memory_bytes));
}

void GhostSim::SetStage(size_t stage, bool measuring) {
  if (!active()) return;
  measuring_ = measuring;
  if (options_.parallel_candidates) {
    stage_ = 0;
    if (!share_fixed_) FixShare();
    if (tiers_) {
      // The warm-up ends: every candidate starts from its state.
      tiers_->SetFastFill(false);
      for (size_t i = 0; i < candidates_.size(); i++) {
        tier_sets_.push_back(std::make_unique<RocksDbCacheModel>(*tiers_));
        tier_sets_.back()->Resettle(Scaled(candidates_[i]), ScaledKernelBytes(i));
      }
      tiers_.reset();
    }
    for (size_t i = 0; i < kernels_.size(); i++) kernels_[i]->SetCapacity(ScaledKernelBytes(i));
    return;
  }
  stage_ = stage;
  if (measuring && !share_fixed_) FixShare();
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
  kernels_[0]->SetCapacity(ScaledKernelBytes(stage));
}

// A grown application cache costs the engine more than its capacity
// (allocator headers, fragmentation), or less where the cache fills only
// part of it (WiredTiger; a negative overhead), and the difference comes
// out of the page cache's room; the offset measured at the current M_a
// already holds the current cost. A shrink is not credited: a fragmented
// heap does not give memory back at once.
double GhostSim::RoomBytes(size_t stage, double growth_share) const {
  const uint64_t ma_bytes = candidates_[stage];
  const double growth = ma_bytes > current_bytes_ ? static_cast<double>(ma_bytes - current_bytes_) : 0;
  return static_cast<double>(options_.memory_bytes) - static_cast<double>(ma_bytes) +
         static_cast<double>(kernel_offset_) - growth_share * growth;
}

double GhostSim::KernelRoomBytes(size_t stage) const {
  return RoomBytes(stage, options_.app_cache_overhead);
}

// The memory cgroup's room at a candidate: what the page cache would have
// if the engine's memory outside its cache grew by heap_growth_share of
// the cache's growth. Not the page cache model's overhead, which also
// stands for the cliff's other costs (0.25 in LevelDB): the heap itself
// grew by 0.048-0.056 of a LevelDB block cache's growth
// (docs/decisions/budget-room.md).
int64_t GhostSim::BudgetRoomBytes(size_t stage) const {
  if (!offset_measured_) return INT64_MAX;
  return static_cast<int64_t>(std::floor(RoomBytes(stage, options_.heap_growth_share)));
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
  // The application ghost (or the block cache) and the kernel ghosts (or
  // the compressed cache): bytes held, of how many. Every kernel ghost
  // counts: the first to fill is not the last.
  if (tiers_) {
    kernel_bytes_seen_.resize(1, 0);
    const bool warm =
        filled(tiers_->primary_used(), app_bytes_seen_, tiers_->primary_capacity()) &&
        filled(tiers_->secondary_used(), kernel_bytes_seen_[0], tiers_->secondary_capacity());
    app_bytes_seen_ = tiers_->primary_used();
    kernel_bytes_seen_.assign(1, tiers_->secondary_used());
    return warm;
  }
  bool warm = filled(AppTracked(), app_bytes_seen_, AppCapacity());
  app_bytes_seen_ = AppTracked();
  kernel_bytes_seen_.resize(kernels_.size(), 0);
  for (size_t i = 0; i < kernels_.size(); i++) {
    warm = filled(kernels_[i]->used_bytes(), kernel_bytes_seen_[i], kernels_[i]->capacity()) && warm;
    kernel_bytes_seen_[i] = kernels_[i]->used_bytes();
  }
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
  for (const auto& tiers : tier_sets_) tiers->SetReadChargeOverhead(bytes);
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
  c.second_tier_misses = stages_[stage].second_tier_misses;
  c.app_misses = app_misses_[stage];
  // One stage for all candidates is each candidate's own.
  c.app_misses_in_stage = options_.rocksdb_tiers || options_.parallel_candidates;
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
  kernels_.clear();
  tiers_.reset();
  tiers_snapshot_.reset();
  tiers_stage_ = kNoStage;
  tier_sets_.clear();
  app_bytes_seen_ = 0;
  kernel_bytes_seen_.clear();
}

void GhostSim::AccessTiers(RocksDbCacheModel* tiers, size_t stage, const Block& block) {
  const uint64_t stores = tiers->stores();
  const RocksDbCacheModel::Served served = tiers->Access(block);
  if (!measuring_) return;
  StageCounts& counts = stages_[stage];
  ++counts.samples;
  counts.second_tier_stores += tiers->stores() - stores;
  if (served == RocksDbCacheModel::Served::kPrimary) return;
  ++app_misses_[stage];
  ++counts.kernel_reads;
  counts.second_tier_misses += served == RocksDbCacheModel::Served::kDevice;
}

void GhostSim::Access(const Block& block) {
  if (!active()) return;
  if (tiers_) {
    AccessTiers(tiers_.get(), stage_, block);
    return;
  }
  for (size_t i = 0; i < tier_sets_.size(); i++) AccessTiers(tier_sets_[i].get(), i, block);
  if (!tier_sets_.empty()) return;
  const uint64_t distance = AppAccess(block);
  if (measuring_) {
    for (size_t i = 0; i < app_limit_.size(); i++) app_misses_[i] += distance > app_limit_[i];
  }
  // Kernel ghost k serves candidate `stage_ + k`: every candidate's, or
  // the stage's only.
  for (size_t k = 0; k < kernels_.size(); k++) {
    const size_t i = stage_ + k;
    StageCounts& counts = stages_[i];
    counts.samples += measuring_;
    if (distance <= app_limit_[i]) continue;  // an application hit
    KernelCache& kernel = *kernels_[k];
    const bool hit = kernel.capacity() >= kPageSize && kernel.Read(block);
    if (measuring_) {
      ++counts.kernel_reads;
      counts.second_tier_misses += !hit;
    }
  }
}

void GhostSim::DropFile(uint64_t file_id) {
  const auto it = files_.find(file_id);
  if (it != files_.end()) {
    file_bytes_ -= it->second.bytes;
    sampled_bytes_ -= it->second.sampled;
    files_.erase(it);
  }
  for (const auto& kernel : kernels_) kernel->DropFile(file_id);
}

void GhostSim::SetFileSize(uint64_t file_id, uint64_t bytes) {
  FileBytes& size = files_[file_id];
  file_bytes_ += bytes - size.bytes;
  const uint64_t sampled = sampler_->SampledBytes(file_id, bytes);
  sampled_bytes_ += sampled - size.sampled;
  size = FileBytes{bytes, sampled};
  for (const auto& kernel : kernels_) kernel->SetFileSize(file_id, bytes);
}

size_t GhostSim::MemoryUsage() const {
  // A hash node per file: three words of value, one of link, one of bucket.
  const size_t files = files_.size() * 5 * sizeof(uint64_t);
  if (!active()) return files;
  size_t ghosts = 0;
  if (tiers_) ghosts += tiers_->MemoryUsage();
  if (tiers_snapshot_) ghosts += tiers_snapshot_->MemoryUsage();
  for (const auto& tiers : tier_sets_) ghosts += tiers->MemoryUsage();
  if (app_) ghosts += app_->MemoryUsage();
  if (app_klru_) ghosts += app_klru_->MemoryUsage();
  for (const auto& kernel : kernels_) ghosts += kernel->MemoryUsage();
  return files + ghosts +
         (app_limit_.size() + app_misses_.size()) * sizeof(uint64_t) +
         stages_.size() * sizeof(StageCounts);
}

}  // namespace symbiosis
