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
#include "model/rocksdb_cache_model.h"
#include "model/sampler.h"
#include "base/thread_counters.h"

namespace symbiosis {
namespace {

// Offsets from 2^52 bytes (4 PiB) and file ids from 2^48 are not real:
// the page model's limits lie there.
constexpr uint64_t kMaxOffset = uint64_t{1} << 52;
constexpr uint64_t kMaxFileId = uint64_t{1} << 48;

// Every kClockChunk accesses a thread's counters move the shared clock,
// the one contended write, and check the deadline.
constexpr uint64_t kClockChunk = 1024;

// The ghosts' memory is summed over every shard of every candidate's
// model: hundreds of cache lines with RocksDB's tiers, where summing it
// at each sampled access took 14-37% of what the access cost
// (bench/controller.md, part 5).
// So the peak is taken once per kPeakMemoryEvery sampled accesses and
// before the Tracker advances: it misses at most that many accesses'
// growth.
constexpr uint64_t kPeakMemoryEvery = 256;

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

}  // namespace

// Invariants: tracker_, sim_, peak_ghost_memory_, simulated_ and decided_bytes_ are
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
                             config_.rocksdb_tiers.has_value(),
                             config_.rocksdb_tiers.value_or(RocksDbTiers{}).block_cache_shard_bits,
                             config_.rocksdb_tiers.value_or(RocksDbTiers{}).secondary_cache_shard_bits,
                             config_.rocksdb_tiers.value_or(RocksDbTiers{}).entry_metadata_bytes,
                             config_.parallel_candidates},
             &sampler_),
        tracker_(config_, memory_, &sim_) {
    if (config_.initial_ma_bytes > memory_) {
      throw InputError("controller config: initial_ma_bytes exceeds the budget M = " +
                       std::to_string(memory_) + " bytes");
    }
    Publish();
    applied_bytes_ = decided_bytes_ = tracker_.ma_bytes();
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

  void RecordRead(const Block& block, bool second_tier_hit, uint64_t service_ns,
                  const std::optional<SchedTimes>& sched) {
    if (Valid(block)) RecordReadUnidentified(second_tier_hit, service_ns, sched);
  }

  void RecordReadUnidentified(bool second_tier_hit, uint64_t service_ns,
                              const std::optional<SchedTimes>& sched) {
    auto mine = counts_.Mine();
    mine.Add(&EventCounts::reads, 1);
    if (second_tier_hit) mine.Add(&EventCounts::read_hits, 1);
    if (service_ns == 0) return;
    if (second_tier_hit) {
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
    s.peak_ghost_memory_bytes = std::max<uint64_t>(peak_ghost_memory_, s.ghost_memory_bytes);
    s.ignored_events = ignored_.load(std::memory_order_relaxed);
    s.sample_rate = config_.sample_rate;
    if (config_.rocksdb_tiers) {
      s.block_cache_shard_bits = config_.rocksdb_tiers->block_cache_shard_bits;
      s.secondary_cache_shard_bits = config_.rocksdb_tiers->secondary_cache_shard_bits;
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
    if (++simulated_ % kPeakMemoryEvery == 0) NotePeakGhostMemory();
  }

  // REQUIRES: mu_ held.
  void NotePeakGhostMemory() {
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
      NotePeakGhostMemory();  // before Advance, which may end the round
      EventTotals totals = Totals();
      // No clock where no times are measured (a replay): its steps and
      // windows then come by accesses alone, the same on every run.
      const uint64_t now_ns = config_.model_cpu_load ? SteadyNowNs() : 0;
      if (tracker_.window_due(totals.accesses, now_ns)) {
        AddProcessTimes(&totals);
        if (tracker_.probing()) totals.probe_distinct = probe_.Distinct();
      }
      const bool changed = tracker_.Advance(totals, now_ns);
      if (tracker_.probe_stretch() != probe_stretch_) {
        probe_stretch_ = tracker_.probe_stretch();
        probe_.Clear();
      }
      Publish();
      if (!changed) return;
      decided_bytes_ = tracker_.ma_bytes();
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
      uint64_t ma_bytes, seq;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ma_bytes = decided_bytes_;
        seq = decided_seq_.load(std::memory_order_relaxed);
      }
      struct Reentry {
        Reentry() { in_resizer = true; }
        ~Reentry() { in_resizer = false; }
      } reentry;
      const uint64_t step = tracker_.step_bytes();  // const: no lock needed
      while (applied_bytes_ != ma_bytes) {
        uint64_t next = ma_bytes;
        if (ma_bytes > applied_bytes_ && ma_bytes - applied_bytes_ > step) {
          next = applied_bytes_ + step;
        } else if (applied_bytes_ > ma_bytes && applied_bytes_ - ma_bytes > step) {
          next = applied_bytes_ - step;
        }
        Resize(applied_bytes_, next);
        applied_bytes_ = next;
      }
      applied_seq_.store(seq, std::memory_order_release);
    }
  }

  // Shrinks before it grows, so that M_a + M_k <= M throughout.
  void Resize(uint64_t old_bytes, uint64_t ma_bytes) {
    if (resizer_ == nullptr || old_bytes == ma_bytes) return;
    const bool tier = config_.second_tier_owned;
    if (ma_bytes < old_bytes) {
      resizer_->SetAppCacheCapacity(ma_bytes);
      if (tier) resizer_->SetSecondTierCapacity(memory_ - ma_bytes);
    } else {
      if (tier) resizer_->SetSecondTierCapacity(memory_ - ma_bytes);
      resizer_->SetAppCacheCapacity(ma_bytes);
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
  uint64_t simulated_ = 0;
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
void Controller::RecordRead(const Block& block, bool second_tier_hit, uint64_t service_ns,
                            std::optional<SchedTimes> sched) {
  rep_->RecordRead(block, second_tier_hit, service_ns, sched);
}
void Controller::RecordReadUnidentified(bool second_tier_hit, uint64_t service_ns,
                                        std::optional<SchedTimes> sched) {
  rep_->RecordReadUnidentified(second_tier_hit, service_ns, sched);
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
