#include "symbiosis/controller.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "online/ghost_sim.h"
#include "online/tracker.h"
#include "online/working_set_probe.h"
#include "symbiosis/error.h"
#include "symbiosis/rocksdb_cache_model.h"
#include "symbiosis/sampler.h"
#include "symbiosis/thread_counters.h"

namespace symbiosis {
namespace {

// Offsets from 2^52 bytes (4 PiB) and file ids from 2^48 are not real:
// the page model's limits lie there.
constexpr uint64_t kMaxOffset = uint64_t{1} << 52;
constexpr uint64_t kMaxFileId = uint64_t{1} << 48;

// Every kClockChunk accesses a thread's counters move the shared clock,
// the one contended write, and check the deadline.
constexpr uint64_t kClockChunk = 1024;

struct EventCounts {
  Counter accesses;
  Counter app_hits;
  Counter reads;
  Counter read_hits;
  Counter hit_timed[kServiceTimeBuckets];  // ServiceTimes::count
  Counter hit_ns[kServiceTimeBuckets];     // ServiceTimes::ns
  Counter hit_split;
  Counter hit_split_ns;
  Counter hit_split_runnable_ns;
  Counter miss_ns;
  Counter miss_timed;
  Counter split_misses;
  Counter split_ns;
  Counter split_cpu_ns;
  Counter split_runnable_ns;
  Counter store_timed[kServiceTimeBuckets];  // ServiceTimes::count
  Counter store_ns[kServiceTimeBuckets];     // ServiceTimes::ns
};

void Require(bool ok, const std::string& message) {
  if (!ok) throw InputError("controller config: " + message);
}

bool Fraction(double x) { return x > 0 && x < 1; }

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string JsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

std::string JsonBool(bool b) { return b ? "true" : "false"; }

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
  Require(!c.rocksdb_cache_model || (c.second_tier_owned && c.app_cache_k == 0),
          "rocksdb_cache_model needs second_tier_owned (the engine's compressed cache) and "
          "app_cache_k 0 (RocksDB's block cache is no K-LRU)");
  for (const auto& [bits, name] :
       {std::pair{c.rocksdb_block_cache_shard_bits, "rocksdb_block_cache_shard_bits"},
        std::pair{c.rocksdb_secondary_cache_shard_bits, "rocksdb_secondary_cache_shard_bits"}}) {
    Require(bits >= 0 && bits <= RocksDbCacheModel::kMaxShardBits,
            std::string(name) + " must be in [0, " +
                std::to_string(RocksDbCacheModel::kMaxShardBits) + "] (RocksDB's num_shard_bits)");
  }
  Require(c.app_cache_overhead > -1 && c.app_cache_overhead < 1,
          "app_cache_overhead must be in (-1, 1), e.g. 0.25 for LevelDB in a memory cgroup");
  Require(c.heap_growth_share >= 0 && c.heap_growth_share < 1,
          "heap_growth_share must be in [0, 1), e.g. 0.1");
  Require(c.cost_smoothing > 0 && c.cost_smoothing <= 1, "cost_smoothing must be in (0, 1]");
  Require(c.costs.app_miss >= 0 && c.costs.kernel_miss >= 0 && std::isfinite(c.costs.app_miss) &&
              std::isfinite(c.costs.kernel_miss) && c.costs.app_miss + c.costs.kernel_miss > 0,
          "costs must be finite, >= 0 and not both 0 (e.g. app_miss 3, kernel_miss 16)");
  Require(c.costs.kernel_miss_cpu >= 0 && c.costs.kernel_miss_cpu <= c.costs.kernel_miss,
          "costs.kernel_miss_cpu must be in [0, kernel_miss] (default 0; measured online)");
  Require(c.memory_bytes > 0,
          "memory_bytes (M) must be set: the budget, or the memory cgroup's limit less a reserve "
          "(ResolveMemoryBudget, symbiosis/memory_budget.h)");
  Require(c.memory_bytes >= c.default_app_bytes,
          "memory_bytes (M) must be at least default_app_bytes");
  Require(c.initial_app_bytes <= c.memory_bytes,
          "initial_app_bytes must not exceed memory_bytes (M)");
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

const char* ControllerStateName(ControllerState state) {
  switch (state) {
    case ControllerState::kStable: return "stable";
    case ControllerState::kAdapting: return "adapting";
    case ControllerState::kTrying: return "trying";
    case ControllerState::kSettling: return "settling";
    case ControllerState::kVerifying: return "verifying";
  }
  return "?";
}

std::string ToJson(const ControllerStats& s) {
  std::string j = "{";
  j += "\"state\": " + JsonString(ControllerStateName(s.state));
  j += ", \"memory_bytes\": " + std::to_string(s.memory_bytes);
  j += ", \"sample_rate\": " + JsonNumber(s.sample_rate);
  j += ", \"settings\": {\"min_app_fraction\": " + JsonNumber(s.settings.min_app_fraction) +
       ", \"read_tie_margin\": " + JsonNumber(s.settings.read_tie_margin) +
       ", \"change_floor_on_parts\": " + JsonBool(s.settings.change_floor_on_parts) +
       ", \"change_floor\": " + JsonNumber(s.settings.change_floor) +
       ", \"app_miss_change_floor\": " + JsonNumber(s.settings.app_miss_change_floor) +
       ", \"device_read_change_floor\": " + JsonNumber(s.settings.device_read_change_floor) + "}";
  if (s.block_cache_shard_bits >= 0) {
    j += ", \"shard_bits\": {\"block_cache\": " + std::to_string(s.block_cache_shard_bits) +
         ", \"secondary_cache\": " + std::to_string(s.secondary_cache_shard_bits) + "}";
  }
  j += ", \"app_bytes\": " + std::to_string(s.app_bytes);
  j += ", \"target_app_bytes\": " + std::to_string(s.target_app_bytes);
  j += ", \"accesses\": " + std::to_string(s.accesses);
  j += ", \"hit_app\": " + JsonNumber(s.hit_app);
  j += ", \"hit_kernel\": " + JsonNumber(s.hit_kernel);
  j += ", \"latency\": " + JsonNumber(s.latency);
  j += ", \"reference_latency\": " + JsonNumber(s.reference_latency);
  j += ", \"costs\": {\"app_miss\": " + JsonNumber(s.costs.app_miss) +
       ", \"kernel_miss\": " + JsonNumber(s.costs.kernel_miss) +
       ", \"app_miss_measured\": " + JsonBool(s.app_miss_cost_measured) +
       ", \"app_miss_split\": " + JsonBool(s.app_miss_cost_split) +
       ", \"kernel_miss_measured\": " + JsonBool(s.kernel_miss_cost_measured) +
       ", \"kernel_miss_cpu\": " + JsonNumber(s.costs.kernel_miss_cpu) +
       ", \"kernel_miss_cpu_measured\": " + JsonBool(s.kernel_miss_cpu_measured) +
       ", \"second_tier_store\": " + JsonNumber(s.costs.second_tier_store) +
       ", \"second_tier_store_measured\": " + JsonBool(s.second_tier_store_measured) +
       ", \"prior\": {\"app_miss\": " + JsonNumber(s.prior_costs.app_miss) +
       ", \"kernel_miss\": " + JsonNumber(s.prior_costs.kernel_miss) +
       ", \"kernel_miss_cpu\": " + JsonNumber(s.prior_costs.kernel_miss_cpu) +
       ", \"second_tier_store\": " + JsonNumber(s.prior_costs.second_tier_store) + "}}";
  j += ", \"cpu_load\": {\"cpus\": " + JsonNumber(s.cpu_load.cpus) +
       ", \"threads\": " + JsonNumber(s.cpu_load.threads) +
       ", \"base_cpu\": " + JsonNumber(s.cpu_load.base_cpu) +
       ", \"measured\": " + JsonBool(s.cpu_load_measured) + "}";
  j += ", \"ghost_memory_bytes\": " + std::to_string(s.ghost_memory_bytes);
  j += ", \"peak_ghost_memory_bytes\": " + std::to_string(s.peak_ghost_memory_bytes);
  j += ", \"ignored_events\": " + std::to_string(s.ignored_events);
  j += ", \"kernel_cache_offset_bytes\": " + std::to_string(s.kernel_cache_offset_bytes);
  j += ", \"read_charge_overhead_bytes\": " + std::to_string(s.read_charge_overhead_bytes);
  j += ", \"rounds\": [";
  for (size_t r = 0; r < s.rounds.size(); r++) {
    const RoundStats& round = s.rounds[r];
    j += r ? ", {" : "{";
    j += "\"start_access\": " + std::to_string(round.start_access);
    j += ", \"end_access\": " + std::to_string(round.end_access);
    j += ", \"trigger\": " + JsonString(round.trigger);
    j += ", \"reset\": " + JsonBool(round.reset);
    j += ", \"current_ma_bytes\": " + std::to_string(round.current_ma_bytes);
    j += ", \"sampled_share\": " + JsonNumber(round.sampled_share);
    j += ", \"measured_latency\": " + JsonNumber(round.measured_latency);
    j += ", \"simulated_latency\": " + JsonNumber(round.simulated_latency);
    j += ", \"adopted_ma_bytes\": " + std::to_string(round.adopted_ma_bytes);
    j += ", \"decision\": " + JsonString(round.decision);
    j += ", \"reason\": " + JsonString(round.reason);
    j += ", \"trials\": [";
    for (size_t i = 0; i < round.trials.size(); i++) {
      const TrialStats& t = round.trials[i];
      j += i ? ", {" : "{";
      j += "\"ma_bytes\": " + std::to_string(t.ma_bytes) +
           ", \"before\": " + JsonNumber(t.before) + ", \"after\": " + JsonNumber(t.after) +
           ", \"before_wall_us\": " + JsonNumber(t.before_wall_us) +
           ", \"after_wall_us\": " + JsonNumber(t.after_wall_us) +
           ", \"kept\": " + JsonBool(t.kept) + "}";
    }
    j += "]";
    const VerificationStats& v = round.verification;
    j += ", \"verification\": ";
    j += v.checked ? "{\"from_ma_bytes\": " + std::to_string(v.from_ma_bytes) +
                         ", \"to_ma_bytes\": " + std::to_string(v.to_ma_bytes) +
                         ", \"from_us\": " + JsonNumber(v.from_us) +
                         ", \"to_us\": " + JsonNumber(v.to_us) +
                         ", \"from_wall_us\": " + JsonNumber(v.from_wall_us) +
                         ", \"to_wall_us\": " + JsonNumber(v.to_wall_us) +
                         ", \"interleaved\": " + JsonBool(v.interleaved) +
                         ", \"undone\": " + JsonBool(v.undone) + "}"
                   : std::string("null");
    j += ", \"candidates\": [";
    for (size_t i = 0; i < round.candidates.size(); i++) {
      const CandidateStats& c = round.candidates[i];
      j += i ? ", {" : "{";
      j += "\"ma_bytes\": " + std::to_string(c.ma_bytes);
      j += ", \"current\": " + JsonBool(c.current);
      j += ", \"valid\": " + JsonBool(c.valid);
      j += ", \"samples\": " + std::to_string(c.samples);
      j += ", \"hit_app\": " + JsonNumber(c.hit_app);
      j += ", \"hit_kernel\": " + JsonNumber(c.hit_kernel);
      j += ", \"stores\": " + JsonNumber(c.stores);
      j += ", \"predicted_latency\": " + JsonNumber(c.predicted_latency);
      j += ", \"predicted_access_time\": " + JsonNumber(c.predicted_access_time);
      j += ", \"overcommits\": " + JsonBool(c.overcommits);
      j += "}";
    }
    j += "]}";
  }
  j += "]}";
  return j;
}

// Invariants: tracker_, sim_, peak_ghost_memory_ and decided_bytes_ are
// guarded by mu_, and so is probe_stretch_. deadline_, simulating_ and
// probing_ mirror the Tracker after each
// Advance, so the hot path reads them without the lock; a stale value
// delays work by at most one clock chunk. Every M_a change bumps
// decided_seq_; the Resizer has been told the latest one once
// applied_seq_ equals it.
class Controller::Rep {
 public:
  Rep(const ControllerConfig& config, Resizer* resizer)
      : config_(Checked(config)),
        memory_(config_.memory_bytes),
        resizer_(resizer),
        sampler_(SamplerOptions{config_.sample_rate, config_.group_blocks,
                                config_.block_disk_bytes}),
        sim_(GhostSimOptions{memory_, config_.kernel_model, config_.max_readahead_pages,
                             config_.app_cache_overhead, config_.heap_growth_share,
                             config_.app_cache_k,
                             config_.rocksdb_cache_model,
                             config_.rocksdb_block_cache_shard_bits,
                             config_.rocksdb_secondary_cache_shard_bits,
                             config_.rocksdb_entry_metadata_bytes,
                             config_.parallel_candidates},
             &sampler_),
        tracker_(config_, memory_, &sim_) {
    if (config_.initial_app_bytes > memory_) {
      throw InputError("controller config: initial_app_bytes exceeds the budget M = " +
                       std::to_string(memory_) + " bytes");
    }
    Publish();
    applied_bytes_ = decided_bytes_ = tracker_.app_bytes();
    if (resizer_ != nullptr) {
      if (config_.second_tier_owned) resizer_->SetSecondTierCapacity(memory_ - applied_bytes_);
      resizer_->SetAppCacheCapacity(applied_bytes_);
    }
  }

  void RecordAppAccess(const Block& block, bool hit) {
    if (!Valid(block)) return;
    if (simulating_.load(std::memory_order_relaxed)) {
      if (sampler_.Sampled(block)) Simulate(block);
    } else if (probing_.load(std::memory_order_relaxed) && sampler_.Sampled(block)) {
      probe_.Add(block);
    }
    RecordAppAccessUnidentified(hit);
  }

  void RecordAppAccessUnidentified(bool hit) {
    auto mine = counts_.Mine();
    if (hit) mine.Add(&EventCounts::app_hits, 1);
    if (mine.Add(&EventCounts::accesses, 1) % kClockChunk == 0) Tick();
  }

  bool simulating() const { return simulating_.load(std::memory_order_relaxed); }
  uint32_t sched_sample_slowdown() const {
    return sched_sample_slowdown_.load(std::memory_order_relaxed);
  }

  void RecordRead(const Block& block, bool kernel_hit, uint64_t service_ns,
                  const std::optional<SchedTimes>& sched) {
    if (Valid(block)) RecordReadUnidentified(kernel_hit, service_ns, sched);
  }

  void RecordReadUnidentified(bool kernel_hit, uint64_t service_ns,
                              const std::optional<SchedTimes>& sched) {
    auto mine = counts_.Mine();
    mine.Add(&EventCounts::reads, 1);
    if (kernel_hit) mine.Add(&EventCounts::read_hits, 1);
    if (service_ns == 0) return;
    if (kernel_hit) {
      const size_t bucket = ServiceTimeBucket(service_ns);
      mine.Add(&EventCounts::hit_timed, bucket, 1);
      mine.Add(&EventCounts::hit_ns, bucket, service_ns);
      if (!sched) return;
      mine.Add(&EventCounts::hit_split, 1);
      mine.Add(&EventCounts::hit_split_ns, service_ns);
      mine.Add(&EventCounts::hit_split_runnable_ns, std::min(sched->wait_ns, service_ns));
      return;
    }
    mine.Add(&EventCounts::miss_ns, service_ns);
    mine.Add(&EventCounts::miss_timed, 1);
    if (!sched) return;
    mine.Add(&EventCounts::split_misses, 1);
    mine.Add(&EventCounts::split_ns, service_ns);
    mine.Add(&EventCounts::split_cpu_ns, std::min(sched->cpu_ns, service_ns));
    mine.Add(&EventCounts::split_runnable_ns, std::min(sched->wait_ns, service_ns));
  }

  void RecordSecondTierStore(uint64_t service_ns) {
    auto mine = counts_.Mine();
    const size_t bucket = ServiceTimeBucket(service_ns);
    mine.Add(&EventCounts::store_timed, bucket, 1);
    mine.Add(&EventCounts::store_ns, bucket, service_ns);
  }

  void RecordFileDeleted(uint64_t file_id) {
    std::lock_guard<std::mutex> lock(mu_);
    sim_.DropFile(file_id);
  }

  void RecordFileSize(uint64_t file_id, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    sim_.SetFileSize(file_id, bytes);
  }

  void SetKernelCacheOffset(int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    sim_.SetKernelOffset(bytes);
  }

  void SetReadChargeOverhead(uint32_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    sim_.SetReadChargeOverhead(bytes);
  }

  ControllerStats Stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    ControllerStats s = tracker_.Stats();
    s.accesses = Totals().accesses;  // the Tracker's clock lags by a chunk
    s.ghost_memory_bytes = sim_.MemoryUsage();
    s.peak_ghost_memory_bytes = peak_ghost_memory_;
    s.ignored_events = ignored_.load(std::memory_order_relaxed);
    s.sample_rate = config_.sample_rate;
    if (config_.rocksdb_cache_model) {
      s.block_cache_shard_bits = config_.rocksdb_block_cache_shard_bits;
      s.secondary_cache_shard_bits = config_.rocksdb_secondary_cache_shard_bits;
    }
    s.kernel_cache_offset_bytes = sim_.kernel_offset();
    s.read_charge_overhead_bytes = sim_.read_charge_overhead();
    return s;
  }

  uint64_t memory_bytes() const { return memory_; }
  const ControllerConfig& config() const { return config_; }

 private:
  static const ControllerConfig& Checked(const ControllerConfig& config) {
    ValidateControllerConfig(config);
    return config;
  }

  bool Valid(const Block& block) {
    if (block.disk_size > 0 && block.mem_size > 0 && block.offset < kMaxOffset &&
        block.file_id < kMaxFileId) {
      return true;
    }
    ignored_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }

  void Simulate(const Block& block) {
    std::lock_guard<std::mutex> lock(mu_);
    try {
      sim_.Access(block);
    } catch (const InputError&) {  // beyond the model's limits (2^24 files)
      ignored_.fetch_add(1, std::memory_order_relaxed);
    }
    peak_ghost_memory_ = std::max<uint64_t>(peak_ghost_memory_, sim_.MemoryUsage());
  }

  EventTotals Totals() const {
    EventTotals t;
    counts_.ForEach([&t](const EventCounts& c) {
      t.accesses += c.accesses.Load();
      t.app_hits += c.app_hits.Load();
      t.reads += c.reads.Load();
      t.read_hits += c.read_hits.Load();
      for (size_t i = 0; i < kServiceTimeBuckets; ++i) {
        t.hits.count[i] += c.hit_timed[i].Load();
        t.hits.ns[i] += c.hit_ns[i].Load();
      }
      t.hit_split += c.hit_split.Load();
      t.hit_split_ns += c.hit_split_ns.Load();
      t.hit_split_runnable_ns += c.hit_split_runnable_ns.Load();
      t.miss_ns += c.miss_ns.Load();
      t.miss_timed += c.miss_timed.Load();
      t.split_misses += c.split_misses.Load();
      t.split_ns += c.split_ns.Load();
      t.split_cpu_ns += c.split_cpu_ns.Load();
      t.split_runnable_ns += c.split_runnable_ns.Load();
      for (size_t i = 0; i < kServiceTimeBuckets; ++i) {
        t.stores.count[i] += c.store_timed[i].Load();
        t.stores.ns[i] += c.store_ns[i].Load();
      }
    });
    return t;
  }

  // The process's times for the CPU load (about 5 us per thread; only for
  // the Advance that ends a window, the one that uses them).
  void AddProcessTimes(EventTotals* t) const {
    if (!config_.model_cpu_load) return;
    const std::optional<SchedTimes> process = ProcessSchedTimes();
    if (!process) return;
    t->wall_ns = SteadyNowNs();
    t->process_cpu_ns = process->cpu_ns;
    t->process_runnable_ns = process->wait_ns;
    t->cpus = AllowedCpus();
  }

  void Publish() {
    deadline_.store(tracker_.next_deadline(), std::memory_order_relaxed);
    simulating_.store(tracker_.simulating(), std::memory_order_relaxed);
    probing_.store(tracker_.probing(), std::memory_order_relaxed);
    sched_sample_slowdown_.store(
        tracker_.state() == ControllerState::kStable ? kStableSchedSampleSlowdown : 1,
        std::memory_order_relaxed);
  }

  void Tick() {
    const uint64_t now = clock_.fetch_add(kClockChunk, std::memory_order_relaxed) + kClockChunk;
    if (now < deadline_.load(std::memory_order_relaxed)) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      EventTotals totals = Totals();
      if (tracker_.window_due(totals.accesses)) {
        AddProcessTimes(&totals);
        if (tracker_.probing()) totals.probe_distinct = probe_.Distinct();
      }
      const bool changed = tracker_.Advance(totals);
      if (tracker_.probe_stretch() != probe_stretch_) {
        probe_stretch_ = tracker_.probe_stretch();
        probe_.Clear();
      }
      Publish();
      if (!changed) return;
      decided_bytes_ = tracker_.app_bytes();
      decided_seq_.fetch_add(1, std::memory_order_release);
    }
    Apply();
  }

  // Applies the latest decision. One thread at a time calls the Resizer;
  // a thread that finds another one at it leaves, and that one re-checks
  // for newer decisions before it goes. A Resizer that records events
  // (and so may end a window) does not re-enter. The Tracker may take
  // several steps while the applying thread is descheduled; the Resizer
  // still sees them one step at a time, so a shrink never drops more than
  // a step at once.
  void Apply() {
    thread_local bool in_resizer = false;
    if (in_resizer) return;
    while (decided_seq_.load(std::memory_order_acquire) !=
           applied_seq_.load(std::memory_order_acquire)) {
      std::unique_lock<std::mutex> resizing(resize_mu_, std::try_to_lock);
      if (!resizing.owns_lock()) return;
      uint64_t app_bytes, seq;
      {
        std::lock_guard<std::mutex> lock(mu_);
        app_bytes = decided_bytes_;
        seq = decided_seq_.load(std::memory_order_relaxed);
      }
      struct Reentry {
        Reentry() { in_resizer = true; }
        ~Reentry() { in_resizer = false; }
      } reentry;
      const uint64_t step = tracker_.step_bytes();  // const: no lock needed
      while (applied_bytes_ != app_bytes) {
        uint64_t next = app_bytes;
        if (app_bytes > applied_bytes_ && app_bytes - applied_bytes_ > step) {
          next = applied_bytes_ + step;
        } else if (applied_bytes_ > app_bytes && applied_bytes_ - app_bytes > step) {
          next = applied_bytes_ - step;
        }
        Resize(applied_bytes_, next);
        applied_bytes_ = next;
      }
      applied_seq_.store(seq, std::memory_order_release);
    }
  }

  // Shrinks before it grows, so that M_a + M_k <= M throughout.
  void Resize(uint64_t old_bytes, uint64_t app_bytes) {
    if (resizer_ == nullptr || old_bytes == app_bytes) return;
    const bool tier = config_.second_tier_owned;
    if (app_bytes < old_bytes) {
      resizer_->SetAppCacheCapacity(app_bytes);
      if (tier) resizer_->SetSecondTierCapacity(memory_ - app_bytes);
    } else {
      if (tier) resizer_->SetSecondTierCapacity(memory_ - app_bytes);
      resizer_->SetAppCacheCapacity(app_bytes);
    }
  }

  const ControllerConfig config_;
  const uint64_t memory_;
  Resizer* const resizer_;
  const Sampler sampler_;

  mutable std::mutex mu_;
  GhostSim sim_;
  Tracker tracker_;
  uint64_t peak_ghost_memory_ = 0;
  uint64_t decided_bytes_ = 0;
  std::atomic<uint64_t> decided_seq_{0};

  std::mutex resize_mu_;
  uint64_t applied_bytes_ = 0;  // guarded by resize_mu_
  std::atomic<uint64_t> applied_seq_{0};

  ThreadCounters<EventCounts> counts_;
  std::atomic<uint64_t> clock_{0};
  std::atomic<uint64_t> deadline_{0};
  std::atomic<bool> simulating_{false};
  std::atomic<bool> probing_{false};
  WorkingSetProbe probe_;
  uint64_t probe_stretch_ = 0;
  std::atomic<uint32_t> sched_sample_slowdown_{1};
  std::atomic<uint64_t> ignored_{0};
};

Controller::Controller(const ControllerConfig& config, Resizer* resizer)
    : rep_(std::make_unique<Rep>(config, resizer)) {}
Controller::~Controller() = default;

void Controller::RecordAppAccess(const Block& block, bool hit) {
  rep_->RecordAppAccess(block, hit);
}
void Controller::RecordAppAccessUnidentified(bool hit) { rep_->RecordAppAccessUnidentified(hit); }
bool Controller::simulating() const { return rep_->simulating(); }
uint32_t Controller::sched_sample_slowdown() const { return rep_->sched_sample_slowdown(); }
void Controller::RecordRead(const Block& block, bool kernel_hit, uint64_t service_ns,
                            std::optional<SchedTimes> sched) {
  rep_->RecordRead(block, kernel_hit, service_ns, sched);
}
void Controller::RecordReadUnidentified(bool kernel_hit, uint64_t service_ns,
                                        std::optional<SchedTimes> sched) {
  rep_->RecordReadUnidentified(kernel_hit, service_ns, sched);
}
void Controller::RecordSecondTierStore(uint64_t service_ns) {
  rep_->RecordSecondTierStore(service_ns);
}
void Controller::RecordFileDeleted(uint64_t file_id) { rep_->RecordFileDeleted(file_id); }
void Controller::RecordFileSize(uint64_t file_id, uint64_t bytes) {
  rep_->RecordFileSize(file_id, bytes);
}
void Controller::SetKernelCacheOffset(int64_t bytes) { rep_->SetKernelCacheOffset(bytes); }
void Controller::SetReadChargeOverhead(uint32_t bytes) { rep_->SetReadChargeOverhead(bytes); }
ControllerStats Controller::Stats() const { return rep_->Stats(); }
uint64_t Controller::memory_bytes() const { return rep_->memory_bytes(); }
const ControllerConfig& Controller::config() const { return rep_->config(); }

}  // namespace symbiosis
