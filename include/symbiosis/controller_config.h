// ControllerConfig: the Controller's tunables (controller.h), each with its
// default and, where the reason matters, its decision record
// (docs/decisions/).

#ifndef SYMBIOSIS_CONTROLLER_CONFIG_H_
#define SYMBIOSIS_CONTROLLER_CONFIG_H_

#include <cstdint>
#include <optional>

#include "symbiosis/cost_model.h"
#include "symbiosis/kernel_cache.h"

namespace symbiosis {

// The engine's second tier as RocksDB runs it (ControllerConfig::
// rocksdb_tiers): what the model copies from the engine's caches.
struct RocksDbTiers {
  // Each cache's num_shard_bits as the engine created it. Near the edge of
  // fitting, the compressed cache's 64 shards sent 0.3-1.9% of the
  // block-cache misses to the device where one shard sent none
  // (docs/decisions/rocksdb-tier-model.md). In [0, 19].
  int block_cache_shard_bits = 0;
  int secondary_cache_shard_bits = 0;
  // What each cache charges an entry beyond its block (RocksDB's LRUHandle
  // and key: 88 bytes for the engine's 16-byte keys).
  uint32_t entry_metadata_bytes = 88;
};

// Every tunable, with its default. Lengths count application-cache
// accesses (RecordAppAccess calls), the clock of the whole Controller.
struct ControllerConfig {
  // --- Budget ---
  // M, required: the budget given, or the memory cgroup's limit less
  // memory_reserve_bytes as ResolveMemoryBudget (symbiosis/memory_budget.h)
  // reads it; the engines' Open does that when their own budget is 0.
  uint64_t memory_bytes = 0;
  // Memory kept out of M when M comes from the cgroup: the engine's heap,
  // memtables, index and filter blocks.
  uint64_t memory_reserve_bytes = uint64_t{64} << 20;
  // The engine's own default M_a (LevelDB 8 MiB); the reset policy's target.
  uint64_t default_ma_bytes = uint64_t{8} << 20;
  // M_a when the Controller starts; applied through the Resizer at once.
  uint64_t initial_ma_bytes = uint64_t{8} << 20;
  // Whether the engine owns the second tier (a compressed cache sized
  // M - M_a through Resizer::SetSecondTierCapacity); otherwise the kernel
  // page cache takes the rest on its own.
  bool second_tier_owned = false;

  // --- Decisions ---
  uint32_t candidates = 9;        // M_a = lo + (M - lo) * i / (candidates - 1), >= 2
  // lo = M * min_app_fraction: the engine's floor. WiredTiger's cache
  // performs badly when small (the paper searched M_a >= M / 4); LevelDB
  // and RocksDB have none (0). The reset policy and initial_ma_bytes are
  // raised to it.
  double min_app_fraction = 0;
  double change_threshold = 0.10;  // relative L_e change that starts a round
  double gain_threshold = 0.10;    // relative gain a candidate must bring
  // A change of L_e is noise, however large relative to a tiny L_e,
  // unless it exceeds this share of C_a + C_k; or, with
  // change_floor_on_parts, unless the application miss ratio or the device
  // reads per access moved by more than this. Unset: the engine's choice,
  // on in LevelDB (where every read hit the page cache, C_k was 120 us and
  // the share of C_a + C_k hid H_a going from 0.20 to 0.38, a layout 1.6x
  // faster) and in WiredTiger (with the floors below), off in RocksDB
  // (docs/decisions/change-floor.md).
  double change_floor = 0.01;
  std::optional<bool> change_floor_on_parts;
  // With change_floor_on_parts, the floor on the application miss ratio's
  // part. Unset: change_floor, or the engine's choice: 0.10 in WiredTiger,
  // whose H_a swings by 7-10 points between 2-second intervals at one M_a
  // (a floor of one point reset M_a to M/4 late in two runs of seven),
  // where a data set that halved moved it 15-19 points
  // (docs/decisions/change-floor.md).
  std::optional<double> app_miss_change_floor;
  // With change_floor_on_parts, the floor on the device reads per access.
  // Unset: change_floor, or the engine's choice: 0.02 in WiredTiger, whose
  // device reads at the page cache's cliff swing between 0.029 and 0.051
  // per access from one 2-second interval to the next under glibc's heap
  // (a floor of 0.01 reset M_a to M/4 at M; docs/decisions/change-floor.md).
  std::optional<double> device_read_change_floor;
  // In Stable, the reference is the mean of change_base_windows windows
  // after the caches warmed, and change_confirm_windows windows in a row
  // must differ from it: at a page-cache cliff one window's L_e swings by
  // a third, and a single window against the best one sent M_a back to
  // the floor on noise. A round is abandoned only after
  // change_confirm_windows windows in a row above its lowest one,
  // likewise (docs/decisions/change-detection.md). Both >= 1.
  uint32_t change_base_windows = 3;
  uint32_t change_confirm_windows = 2;
  // The guard: predictions are used only if the simulated current
  // configuration is within this relative error of the measured one.
  double model_tolerance = 0.5;
  bool reset_on_rise = true;  // the reset policy (paper §4.2.1)
  bool start_with_round = true;  // simulate once at start, as the paper does

  // --- Sampling (paper §4.2.3) ---
  double sample_rate = 1.0 / 64;  // R, in (0, 1]
  uint32_t group_blocks = 32;     // G
  uint32_t block_disk_bytes = 4096;  // nominal on-disk block size

  // --- Windows ---
  uint64_t window_accesses = 100'000;          // one measured L_e
  // The round's ghosts start empty and fill before stage 0 is measured:
  // at least round_warmup_accesses, then until both ghosts are full or
  // stopped growing (checked every warmup_check_accesses), at most
  // max_round_warmup_accesses.
  uint64_t round_warmup_accesses = 200'000;
  uint64_t max_round_warmup_accesses = 700'000;
  uint64_t warmup_check_accesses = 50'000;
  uint64_t candidate_warmup_accesses = 25'000;  // kernel ghost after a shrink
  uint64_t candidate_accesses = 60'000;        // one candidate's measurement
  // Every candidate measured at once, over one window of
  // parallel_measure_accesses, each on its own kernel ghost (or RocksDB
  // tiers): a round ~2x shorter, for a kernel ghost per candidate instead
  // of one reused (ghost_sim.h, docs/decisions/parallel-candidates.md).
  // False: one after another, as the paper does.
  bool parallel_candidates = true;
  uint64_t parallel_measure_accesses = 240'000;
  // Sampled accesses a candidate's window needs before its prediction
  // counts; a short window is extended up to max_extensions times.
  uint64_t min_samples = 800;
  uint32_t max_extensions = 3;
  // After a resize, before a reference; after a trial's move, in halves
  // until the device reads stop falling (at least two, at most twenty).
  uint64_t settle_accesses = 300'000;
  uint32_t max_abandoned_rounds = 3;   // in a row, then back off
  // Rounds in a row whose predictions could not be used (the model off
  // for the workload, too few samples), then back off as after churn: a
  // workload the model cannot judge stays so, and each round costs its
  // sampling (LevelDB with 30% overwrites ran five such rounds in 60 s at
  // the split static-default ran, 0.948x it: bench/heldout.md).
  uint32_t max_unjudged_rounds = 3;
  uint64_t churn_backoff_accesses = 10'000'000;
  // Re-simulate after this many Stable accesses even without a change;
  // 0: never.
  uint64_t resimulate_accesses = 0;

  // --- Trials (need the process's scheduler times) ---
  // Candidates whose scores are at most (1 + trial_band) times the
  // current one's are tried, up to max_trials of them per round, those
  // predicting the fewest device reads first (within 0.005 per access a
  // tie, tried from its ends inward: the smallest M_a, the largest, ...);
  // trial_band 0: no trials. All of them run, then the current M_a is
  // measured again; the one with the least busy thread time per access
  // (over trial_windows windows) relative to the current M_a's at its
  // time stays if that is at least trial_gain below it. A round's winner
  // predicting at least trial_gain goes first. In LevelDB's hotspot20
  // cell at M/D_u 0.4 the layout without a
  // block cache scored 13-19% above the current 8 MiB and ran 2.2x faster
  // (docs/decisions/trial-band.md).
  double trial_band = 0.2;
  double trial_gain = 0.05;
  uint32_t trial_windows = 3;
  // And at least this long: a measure of trial_windows windows lasts
  // 1.5 s where LevelDB serves 200K operations per second, too short to
  // tell apart layouts 5-10% apart on a shared machine (LevelDB's uniform
  // at 0.8 kept 32 MiB over 0 MiB on such margins;
  // docs/decisions/trial-measure.md).
  double trial_min_seconds = 5;
  uint32_t max_trials = 2;
  // A winner predicting less than trusted_gain is not adopted on the
  // model's word: it is tried first, beside the band's candidates, and
  // stays only if it measures faster as they must. In RocksDB's hotspot20
  // cell at 0.6, M_a = M predicted 12% and 17% and ran 0.59-0.80x the
  // 8 MiB it replaced; in LevelDB's uniform at 0.8, 32 MiB predicted 10%
  // where no block cache ran 1.05-1.09x faster
  // (docs/decisions/trusted-gain.md). At most gain_threshold: every
  // adoption on the model alone.
  double trusted_gain = 0.2;
  // Every move a round makes is judged by measurement (Verifying): where
  // the round leaves M_a at a split that nothing measured against the one
  // before the round (an adoption on the model's word, a reset's split
  // kept), the new split is measured once the caches settle and compared
  // with the old one's measure from before the move. Slower by more than
  // trial_gain, the old split is measured again in between (new, old, new,
  // as a trial), and the move is undone if the old one measured trial_gain
  // faster than the new one at its time. An undone split is not chosen
  // again until Stable sees the workload change. Needs the process's
  // scheduler times, as trials do (docs/decisions/verified-moves.md).
  bool verify_moves = true;
  // A verified move that measured at least trial_gain faster than the
  // split it replaced shows the model right about the direction; how far
  // to go is what it gets wrong most (where a cliff lies, how much memory
  // the engine keeps beside its cache). So the end of that direction, the
  // largest candidate after a grow or the smallest after a shrink (valid,
  // not undone, not overcommitting), is tried against the verified split
  // as a trial is, and stays only if it measures trial_gain faster
  // (docs/decisions/direction-end-trial.md). A trial's keep shows a
  // direction alike: its end, unless a trial of the round measured it, is
  // tried against the kept split. Needs trials (trial_band > 0).
  bool try_direction_end = true;
  // Candidates scoring within read_tie_margin of the best and predicting
  // at most half its device reads tie with it, and the one predicting the
  // fewest (in steps of 0.005 per access, then by score) wins: near a
  // second tier's cliff the model undercounts reads, and a read costs
  // more than its per-event price.
  // 0: off. Unset: the engine's choice, 0.03 in RocksDB's engine budget,
  // 0.08 in WiredTiger, off in LevelDB. In RocksDB's zipfian and
  // hotspot30 at M/D_u 0.8, 21 of 24 first rounds ranked 40 MiB best with
  // 32 within 0.2-2%, 40 predicting 0.009-0.011 reads per access where 32
  // predicted 0.0003: RocksDB measured H_k 0.95 at 40 against the model's
  // 0.968, and 32 ran 5-10% faster than 40. In WiredTiger's hotspot20 at
  // 0.4, 52 MiB ranked 3.2-5.7% ahead of 46 (0.014-0.019 reads per access
  // against none) and ran 15-30% slower, its CPU per access outside the
  // reads 3.5 us higher (the cgroup is full there: likely reclaim;
  // docs/decisions/read-tie-margin.md).
  std::optional<double> read_tie_margin;

  // --- Resizing ---
  uint64_t resize_step_bytes = 0;  // per step; 0: M / 16
  // A step per this many accesses, or sooner where the clock says a walk
  // across the whole budget would outlast trial_min_seconds (where a split
  // serves a few thousand accesses a second; with model_cpu_load only;
  // docs/decisions/resize-step-time.md).
  uint64_t resize_step_accesses = 10'000;

  // --- Application ghost ---
  // How the engine's application cache evicts: 0, LRU (LevelDB's and
  // RocksDB's block caches; the ghost is an exact LRU stack); K >= 1, by
  // random sampling, the least recently used of K keys drawn (Redis's
  // maxmemory-samples; the ghost is KRR's stack, krr_stack.h).
  uint32_t app_cache_k = 0;
  // Where the engine owns the second tier and it is RocksDB 7.8's block
  // cache above its compressed secondary cache: both tiers are simulated
  // as RocksDB runs them (rocksdb_cache_model.h), since midpoint insertion
  // and admission at a second eviction are what no LRU stack predicts. In
  // hotspot10 at M/D_u 0.8 with 8 MiB of block cache, RocksDB hit H_a 0.85
  // and H_k 1.00; the LRU ghosts predicted 0.73 and 0.94 and the guard
  // stopped every round; this model predicts 0.86 and 1.00
  // (docs/decisions/rocksdb-tier-model.md). Set by the RocksDB plugin from
  // the caches it made. REQUIRES second_tier_owned and app_cache_k 0;
  // kernel_model does not apply. Unset: LRU ghosts.
  std::optional<RocksDbTiers> rocksdb_tiers;

  // --- Kernel ghost ---
  KernelModelKind kernel_model = KernelModelKind::kLinux;
  uint32_t max_readahead_pages = 32;
  // Where the budget is the kernel's, an engine's memory outside its cache
  // grows with the cache (allocator headers, heap fragmentation) and
  // takes page-cache room: a candidate M_a above the current one is
  // simulated with this fraction of the growth taken from the kernel
  // ghost. Without it, the Controller adopts the largest M_a at which the
  // ghost still holds all the data, and the real page cache, a few MiB
  // smaller, does not (the page-cache cliff). 0 where the engine owns the
  // second tier or the page cache is emulated at exactly M - M_a. Negative
  // where the cache takes less than its capacity as it grows: WiredTiger
  // keeps 80-95% of cache_size filled. In (-1, 1).
  double app_cache_overhead = 0;
  // Where the budget is a memory cgroup (its room measured, see
  // SetKernelCacheOffset): the share of an application cache's growth by
  // which the engine's other memory (allocator headers, handles) grows. A
  // candidate that leaves the cgroup negative room so counted would bring
  // the OOM killer, and is never chosen (CandidateStats::overcommits).
  // LevelDB's heap grew by 0.048-0.056 of its block cache's growth; twice
  // that (docs/decisions/budget-room.md). In [0, 1).
  double heap_growth_share = 0.1;

  // --- Miss costs (microseconds) ---
  // Used until measured, and always for a cost whose measuring is off.
  // A second_tier_miss_cpu > 0 is a prior: A ranks from the first window, before
  // any device read (an engine's Open can measure both; device_read_cost.h).
  MissCosts costs;
  bool measure_app_miss_cost = true;     // C_a from reads the kernel served,
                                         // C_s from the second tier's stores
  bool measure_second_tier_miss_cost = true;  // C_k from device reads
  // Rank candidates by A, which knows that with more busy threads than
  // CPUs a device wait costs less than the CPU (cost_model.h), once the
  // process's scheduler times and C_k_cpu are known; false: by L_e,
  // the paper's model. Either way the guard compares L_e.
  bool model_cpu_load = true;
  double cost_smoothing = 0.2;  // EWMA weight of a window's mean, (0, 1]
  uint64_t min_cost_samples = 64;  // timed reads a window needs to count
};

// Throws InputError naming the field if `config` is invalid: thresholds
// outside (0, 1), R outside (0, 1], candidates < 2, zero lengths,
// M missing or smaller than the default M_a, negative costs.
void ValidateControllerConfig(const ControllerConfig& config);

// The smallest R = config.sample_rate * 2^k (at most 1) that samples
// `min_groups` groups of `table_bytes` of table files: at R = 1/64 a DB of
// a few hundred MiB has a few dozen sampled groups, too few for a skewed
// workload's hot spot. table_bytes == 0 (no tables yet) keeps the
// configured R: the data will grow, and R = 1 would sample everything.
double SampleRateForTables(const ControllerConfig& config, uint64_t table_bytes,
                           uint32_t min_groups);

}  // namespace symbiosis

#endif  // SYMBIOSIS_CONTROLLER_CONFIG_H_
