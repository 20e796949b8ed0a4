#include "symbiosis/controller_config.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "symbiosis/error.h"
#include "model/rocksdb_cache_model.h"

namespace symbiosis {
namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw InputError("controller config: " + message);
}

bool Fraction(double x) { return x > 0 && x < 1; }

}  // namespace

void ValidateControllerConfig(const ControllerConfig& c) {
  Require(c.candidates >= 2, "candidates must be at least 2 (M_a = 0 and M_a = M)");
  Require(c.min_app_fraction >= 0 && c.min_app_fraction < 1,
          "min_app_fraction must be in [0, 1), e.g. 0.25 for WiredTiger");
  Require(Fraction(c.change_threshold), "change_threshold must be in (0, 1), e.g. 0.1");
  Require(Fraction(c.gain_threshold), "gain_threshold must be in (0, 1), e.g. 0.1");
  Require(c.trial_band >= 0 && c.trial_band < 1, "trial_band must be in [0, 1), e.g. 0.2");
  Require(Fraction(c.trial_gain), "trial_gain must be in (0, 1), e.g. 0.05");
  Require(c.trial_windows > 0, "trial_windows must be at least 1 (default 3)");
  Require(c.trial_min_seconds >= 0 && c.trial_min_seconds <= 3600,
          "trial_min_seconds must be in [0, 3600], e.g. 5");
  Require(c.trusted_gain >= 0 && c.trusted_gain < 1,
          "trusted_gain must be in [0, 1), e.g. 0.2 (at most gain_threshold: adopt on the model alone)");
  Require(!c.read_tie_margin || (*c.read_tie_margin >= 0 && *c.read_tie_margin < 1),
          "read_tie_margin must be in [0, 1), e.g. 0.03 (0 turns the tie-break off)");
  Require(c.max_trials > 0, "max_trials must be at least 1 (default 2); trial_band = 0 turns "
                            "trials off");
  Require(c.change_floor >= 0 && c.change_floor < 1, "change_floor must be in [0, 1), e.g. 0.01");
  Require(!c.app_miss_change_floor ||
              (*c.app_miss_change_floor >= 0 && *c.app_miss_change_floor < 1),
          "app_miss_change_floor must be in [0, 1), e.g. 0.1 (unset: change_floor)");
  Require(!c.device_read_change_floor ||
              (*c.device_read_change_floor >= 0 && *c.device_read_change_floor < 1),
          "device_read_change_floor must be in [0, 1), e.g. 0.02 (unset: change_floor)");
  Require(c.change_base_windows >= 1 && c.change_confirm_windows >= 1,
          "change_base_windows and change_confirm_windows must be at least 1 (defaults 3, 2)");
  Require(c.model_tolerance > 0 && std::isfinite(c.model_tolerance),
          "model_tolerance must be > 0, e.g. 0.5");
  Require(c.sample_rate > 0 && c.sample_rate <= 1,
          "sample_rate must be in (0, 1], e.g. 0.015625 (1/64)");
  Require(c.group_blocks > 0, "group_blocks must be at least 1 (default 32)");
  Require(c.block_disk_bytes > 0, "block_disk_bytes must be > 0 (default 4096)");
  Require(c.window_accesses > 0, "window_accesses must be > 0 (default 100000)");
  Require(c.warmup_check_accesses > 0, "warmup_check_accesses must be > 0 (default 50000)");
  Require(c.max_round_warmup_accesses >= c.round_warmup_accesses,
          "max_round_warmup_accesses must be at least round_warmup_accesses");
  Require(c.candidate_accesses > 0, "candidate_accesses must be > 0 (default 60000)");
  Require(c.parallel_measure_accesses > 0, "parallel_measure_accesses must be > 0 (default 240000)");
  Require(c.resize_step_accesses > 0, "resize_step_accesses must be > 0 (default 10000)");
  Require(c.max_abandoned_rounds > 0, "max_abandoned_rounds must be at least 1 (default 3)");
  Require(c.max_unjudged_rounds > 0, "max_unjudged_rounds must be at least 1 (default 3)");
  Require(c.max_readahead_pages > 0, "max_readahead_pages must be at least 1 (default 32)");
  Require(c.app_cache_k <= 1024, "app_cache_k must be 0 (LRU) or a K-LRU sample size up to "
                                 "1024, e.g. 5 as Redis");
  Require(!c.rocksdb_tiers || (c.second_tier_owned && c.app_cache_k == 0),
          "rocksdb_tiers needs second_tier_owned (the engine's compressed cache) and "
          "app_cache_k 0 (RocksDB's block cache is no K-LRU)");
  if (c.rocksdb_tiers) {
    for (const auto& [bits, name] :
         {std::pair{c.rocksdb_tiers->block_cache_shard_bits, "rocksdb_tiers.block_cache_shard_bits"},
          std::pair{c.rocksdb_tiers->secondary_cache_shard_bits,
                    "rocksdb_tiers.secondary_cache_shard_bits"}}) {
      Require(bits >= 0 && bits <= RocksDbCacheModel::kMaxShardBits,
              std::string(name) + " must be in [0, " +
                  std::to_string(RocksDbCacheModel::kMaxShardBits) +
                  "] (RocksDB's num_shard_bits)");
    }
  }
  Require(c.app_cache_overhead > -1 && c.app_cache_overhead < 1,
          "app_cache_overhead must be in (-1, 1), e.g. 0.25 for LevelDB in a memory cgroup");
  Require(c.heap_growth_share >= 0 && c.heap_growth_share < 1,
          "heap_growth_share must be in [0, 1), e.g. 0.1");
  Require(c.cost_smoothing > 0 && c.cost_smoothing <= 1, "cost_smoothing must be in (0, 1]");
  Require(c.costs.app_miss >= 0 && c.costs.second_tier_miss >= 0 && std::isfinite(c.costs.app_miss) &&
              std::isfinite(c.costs.second_tier_miss) && c.costs.app_miss + c.costs.second_tier_miss > 0,
          "costs must be finite, >= 0 and not both 0 (e.g. app_miss 3, second_tier_miss 16)");
  Require(c.costs.second_tier_miss_cpu >= 0 && c.costs.second_tier_miss_cpu <= c.costs.second_tier_miss,
          "costs.second_tier_miss_cpu must be in [0, second_tier_miss] (default 0; measured online)");
  Require(c.memory_bytes > 0,
          "memory_bytes (M) must be set: the budget, or the memory cgroup's limit less a reserve "
          "(ResolveMemoryBudget, symbiosis/memory_budget.h)");
  Require(c.memory_bytes >= c.default_ma_bytes,
          "memory_bytes (M) must be at least default_ma_bytes");
  Require(c.initial_ma_bytes <= c.memory_bytes,
          "initial_ma_bytes must not exceed memory_bytes (M)");
}

double SampleRateForTables(const ControllerConfig& config, uint64_t table_bytes,
                           uint32_t min_groups) {
  if (table_bytes == 0) return config.sample_rate;
  const double group_bytes = double(config.group_blocks) * config.block_disk_bytes;
  const double groups = table_bytes / group_bytes;
  double rate = config.sample_rate;
  while (rate < 1 && groups * rate < min_groups) rate = std::min(1.0, rate * 2);
  return rate;
}

}  // namespace symbiosis
