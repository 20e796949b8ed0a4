// GhostSim: the ghosts of one simulation round (paper §4.1.2, §4.2.2).
//
// A round predicts H_a and H_k for candidate application-cache sizes
// M_a[0] < M_a[1] < ... with the rest of the budget, M - M_a[i], in the
// kernel cache. It sees only sampled accesses (a fraction R of the groups
// of G blocks, see sampler.h), so everything is scaled by R: the ghosts
// hold R * M bytes standing for M.
//
// Application side: one GhostLru of R * M bytes gives each access's byte
// stack distance d, and an LRU cache of R * M_a[i] bytes hits exactly when
// d <= R * M_a[i]: one ghost answers every candidate at once, over every
// measured access of the round. For a K-LRU application cache a KrrStack
// gives d instead, and the hit holds in law.
// Kernel side: the reads that miss the application cache depend on M_a, so
// each candidate needs its own kernel ghost (a PageCacheModel, read-ahead
// confined to sampled groups) fed by the misses of its own M_a. By default
// (options.parallel_candidates) every candidate has one, all fed from the
// round's start and measured over the same window: the round lasts one
// window instead of one per candidate (n times fewer measured accesses,
// ~3x shorter a round in all), and the candidates are compared on the same
// accesses, so the machine's drift and the sample's luck are common to all.
// The price is n kernel ghosts' memory instead of one
// (docs/decisions/parallel-candidates.md). Otherwise, as the paper does,
// one kernel ghost runs one candidate at a time, in increasing M_a:
// growing M_a shrinks it to R * (M - M_a[i]); it keeps the deeper part of
// its contents, is warmed for a while (not measured) and then measured.
// Reusing one ghost is what keeps the round's memory within a few hundred
// KiB (paper Table 3: "Reuse & Sampling").
//
// RocksDB's engine budget (options.rocksdb_tiers): neither tier is an LRU
// (rocksdb_cache_model.h), so a RocksDbCacheModel simulates both, per
// candidate like the kernel ghost (all at once, or one at a time), and H_a
// too is counted over the candidate's own stage. It warms at the engine's
// current split, and each candidate starts from a copy of that state,
// resettled to its split (RocksDbCacheModel::Resettle: what the two caches would hold
// once settled there, which a stage is too short to reach by itself:
// resized as the engine resizes, a block cache 24 MiB larger read H_k
// 0.86-0.90 after 25K-200K accesses where it settles at 1.00). Order matters
// otherwise: at M_a = 0 nothing new enters the secondary (RocksDB admits
// only blocks the block cache evicts), so a candidate run after it would
// start from a secondary that stopped filling. The engine's caches hold
// its whole history, the ghost's only the round's: during the warm-up the
// model's secondary stores a block at its first eviction, not its second
// (RocksDbCacheModel::SetFastFill), or in hotspot10 at M/D_u 0.8 a cold
// model took 1.25M accesses to serve 99% of the reads it served warm.
//
// Not thread-safe: the Controller serializes calls.

#ifndef SYMBIOSIS_ONLINE_GHOST_SIM_H_
#define SYMBIOSIS_ONLINE_GHOST_SIM_H_

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "online/round_simulator.h"
#include "symbiosis/block.h"
#include "model/ghost_lru.h"
#include "symbiosis/kernel_cache.h"
#include "model/krr_stack.h"
#include "model/rocksdb_cache_model.h"
#include "model/sampler.h"

namespace symbiosis {

struct GhostSimOptions {
  uint64_t memory_bytes = 0;  // M
  KernelModelKind kernel_model = KernelModelKind::kLinux;
  uint32_t max_readahead_pages = 32;
  // ControllerConfig::app_cache_overhead.
  double app_cache_overhead = 0;
  // ControllerConfig::heap_growth_share.
  double heap_growth_share = 0.1;
  // ControllerConfig::app_cache_k: 0, the application ghost is an LRU
  // stack (GhostLru); K, KRR's K-LRU stack (KrrStack).
  uint32_t app_cache_k = 0;
  // ControllerConfig::rocksdb_tiers set: both tiers are one
  // RocksDbCacheModel; app_cache_k and kernel_model do not apply.
  bool rocksdb_tiers = false;
  // ControllerConfig::rocksdb_tiers: the engine's shard counts.
  int primary_shard_bits = 0;
  int secondary_shard_bits = 0;
  // ControllerConfig::rocksdb_tiers->entry_metadata_bytes.
  uint32_t entry_metadata_bytes = RocksDbCacheModelOptions{}.entry_metadata_bytes;
  // ControllerConfig::parallel_candidates.
  bool parallel_candidates = true;
};

// The shard bits a model of a `share` of the blocks gives a cache of
// `bits`: each of its shards stays the size of one of the engine's and
// sees as many blocks, rather than a sample too small to hold a few
// (64 shards of 56 MiB sampled at R = 1/64 would hold 7 blocks of 2 KiB
// each). At least 0.
int SampledShardBits(int bits, double share);

class GhostSim final : public RoundSimulator {
 public:
  // The application ghost's slot headroom (GhostLru::Options): 1.25 rather
  // than the default 2 keeps its memory at ~27 B per entry, within the
  // round's 0.05%-of-M budget, for 83.6 rather than 58.9 ns per ghost
  // access; only sampled accesses reach it (bench/ghost_lru.md).
  static constexpr double kAppGhostHeadroom = 1.25;

  // REQUIRES: `sampler` outlives the GhostSim; options.memory_bytes > 0.
  GhostSim(const GhostSimOptions& options, const Sampler* sampler);
  ~GhostSim() override;

  // RoundSimulator.
  void Begin(const std::vector<uint64_t>& candidates, size_t current) override;
  // With options.parallel_candidates, `stage` is ignored: one stage
  // measures every candidate.
  void SetStage(size_t stage, bool measuring) override;
  bool AllCandidatesAtOnce() const override { return options_.parallel_candidates; }
  bool CheckWarm() override;
  uint64_t StageSamples() const override;
  CandidateCounts Counts(size_t stage) const override;
  // The sampled groups' bytes over the bytes of the files whose sizes are
  // known (SetFileSize), counted when the round's first stage starts
  // measuring; R when none are known. A uniform replay of 106 MiB sampled
  // at R = 1/4 held 1.066 R of its data: scaled by R, the ghosts stood for
  // caches 7% smaller than the candidates, and every H_a came out 0.065
  // low (0.011 instead of 0.075 at 8 MiB).
  double SampledShare() const override { return share_; }
  void End() override;
  size_t MemoryUsage() const override;

  // One sampled access (the caller checked Sampler::Sampled). No effect
  // outside a round. REQUIRES: disk_size > 0, mem_size > 0.
  void Access(const Block& block);

  // The file was deleted: the kernel ghost forgets its pages, as the page
  // cache does. The application ghost keeps its blocks until they age
  // out, as the engines' block caches do (LevelDB and RocksDB do not
  // erase a deleted table's blocks; they are simply never hit again), and
  // a per-file key index would cost more than the ghost itself. So do the
  // RocksDB tiers' (the real secondary cache drops them: see
  // ObservingSecondaryCache).
  void DropFile(uint64_t file_id);

  // The file's size, kept across rounds and given to each round's kernel
  // ghost, so that its read-ahead stops at the end of the file as the page
  // cache's does (with an 8 MiB window and no sizes, a 106 MiB DB's ghost
  // filled a fifth of its room with pages past the ends of its tables);
  // the sizes also give the next round's SampledShare.
  void SetFileSize(uint64_t file_id, uint64_t bytes);

  // The kernel cache really holds M - M_a + `bytes` (see
  // Controller::SetKernelCacheOffset); the kernel ghost is sized so from
  // the next stage on.
  void SetKernelOffset(int64_t bytes) {
    kernel_offset_ = bytes;
    offset_measured_ = true;
  }
  int64_t kernel_offset() const { return kernel_offset_; }

  // The application cache charges a block read from disk `bytes` beyond
  // its mem_size (Controller::SetReadChargeOverhead); from the next access
  // on, in this round and the next.
  void SetReadChargeOverhead(uint32_t bytes);
  uint32_t read_charge_overhead() const { return read_charge_overhead_; }

  bool active() const {
    return app_ != nullptr || app_klru_ != nullptr || tiers_ != nullptr || !tier_sets_.empty();
  }

 private:
  struct FileBytes {
    uint64_t bytes = 0;
    uint64_t sampled = 0;  // in sampled groups
  };
  struct StageCounts {
    uint64_t samples = 0;
    uint64_t kernel_reads = 0;
    uint64_t second_tier_misses = 0;
    uint64_t second_tier_stores = 0;
  };

  uint64_t Scaled(uint64_t bytes) const;
  void FixShare();
  void AccessTiers(RocksDbCacheModel* tiers, size_t stage, const Block& block);
  uint64_t AppAccess(const Block& block);
  uint64_t AppTracked() const;
  uint64_t AppCapacity() const;
  void SetAppCapacity(uint64_t bytes);
  double CountedShare() const;
  // The share times the kernel cache's room at candidate `stage`: M - M_a +
  // kernel_offset_, less the overhead of M_a's growth past the current
  // M_a; at least 0.
  uint64_t ScaledKernelBytes(size_t stage) const;
  // Unscaled: M - M_a + kernel_offset_ at candidate `stage`, less
  // `growth_share` of M_a's growth past the current M_a; may be negative.
  double RoomBytes(size_t stage, double growth_share) const;
  // RoomBytes with the model's app_cache_overhead: the cache below's room.
  double KernelRoomBytes(size_t stage) const;
  // CandidateCounts::budget_room_bytes of candidate `stage`.
  int64_t BudgetRoomBytes(size_t stage) const;

  const GhostSimOptions options_;
  const Sampler* const sampler_;
  int64_t kernel_offset_ = 0;
  bool offset_measured_ = false;  // a memory cgroup's room is measured
  uint32_t read_charge_overhead_ = 0;
  std::unordered_map<uint64_t, FileBytes> files_;  // SetFileSize
  uint64_t file_bytes_ = 0;     // the sum over files_
  uint64_t sampled_bytes_ = 0;

  // Round state; empty between rounds.
  double share_ = 1;  // SampledShare
  bool share_fixed_ = false;
  std::vector<uint64_t> candidates_;  // M_a[i]
  uint64_t current_bytes_ = 0;        // the M_a the engine runs
  std::vector<uint64_t> app_limit_;  // R * M_a[i]: hit iff distance <= it
  std::vector<uint64_t> app_misses_;  // per candidate, over measured accesses
  std::vector<StageCounts> stages_;
  size_t stage_ = 0;
  bool measuring_ = false;
  // The application ghost: one of the two, by options_.app_cache_k.
  std::unique_ptr<GhostLru> app_;
  std::unique_ptr<KrrStack> app_klru_;
  // The kernel ghosts: one per candidate (parallel_candidates), or one
  // reused by every stage.
  std::vector<std::unique_ptr<KernelCache>> kernels_;
  // Or both tiers in one (options_.rocksdb_tiers): the model the round's
  // warm-up runs at the current split and, one at a time, the state it
  // left, which every candidate's stage starts from; all at once, a copy
  // per candidate made when the warm-up ends.
  static constexpr size_t kNoStage = SIZE_MAX;
  std::unique_ptr<RocksDbCacheModel> tiers_;
  std::unique_ptr<RocksDbCacheModel> tiers_snapshot_;
  size_t tiers_stage_ = kNoStage;
  std::vector<std::unique_ptr<RocksDbCacheModel>> tier_sets_;
  uint64_t app_bytes_seen_ = 0;     // at the previous CheckWarm
  std::vector<uint64_t> kernel_bytes_seen_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_GHOST_SIM_H_
