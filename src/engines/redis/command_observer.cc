#include "engines/redis/command_observer.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "base/hash.h"
#include "symbiosis/error.h"
#include "symbiosis/redis_cache.h"

namespace symbiosis {

namespace {

// A value's size where no write of the key was seen and none of any key.
constexpr uint32_t kUnknownValueBytes = 64;

// Keys shorter than this have their guessed cost read from a table: the
// size classes' arithmetic on every read cost 0.27% of a server's time.
constexpr size_t kGuessedKeyLengths = 64;

// Sizes to 1/64 (krr.h): the histograms stay bounded for weeks of requests.
constexpr uint32_t kDistanceBits = 7;

// No distinct-key count: a register read at random on every read missed
// the CPU's first cache between a server's commands even at 4 KiB, and at
// the floor of keys it corrects the sample's share by no more than its own
// error (docs/decisions/module-distinct-count.md).
constexpr uint32_t kDistinctBits = 0;

// The background ring: 16K reads (256 KiB) is 0.3 s of a million commands
// a second sampled at 6%, taken off in batches. The thread sleeps 10 ms
// when it finds the ring empty: woken every 0.5 ms, its context switches
// cost the server's thread beside it 4% of its time.
constexpr size_t kRingSlots = size_t{1} << 14;
constexpr size_t kBatch = 256;
constexpr auto kIdleSleep = std::chrono::milliseconds(10);

// The CPU budget's window.
constexpr auto kBudgetWindow = std::chrono::seconds(1);

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

KrrOptions CurveOptions(const CommandObserverOptions& o) {
  KrrOptions k;
  k.unit = CacheUnit::kBytes;
  k.rate = o.rate;
  k.min_keys = o.min_keys;
  k.seed = o.seed;
  k.distance_bits = kDistanceBits;
  k.distinct_bits = kDistinctBits;
  return k;
}

}  // namespace

CommandObserver::CommandObserver(const CommandObserverOptions& options) : options_(options) {
  if (options.ks.empty()) throw InputError("the Redis module needs at least one K (ks 1,5,8,16)");
  if (!(options.cpu_budget >= 0 && options.cpu_budget <= 1)) {
    throw InputError("the module's cpu-budget must be a share of one CPU from 0 (no limit) to "
                     "1; e.g. 0.01");
  }
  for (const uint32_t k : options.ks) {
    if (k > 64) {
      throw InputError("a K (maxmemory-samples) must be from 1 to 64, or 0 for exact LRU; got " +
                       std::to_string(k));
    }
  }
  for (size_t n = 0; n < kGuessedKeyLengths; n++) {
    guessed_bytes_.push_back(
        static_cast<uint32_t>(RedisKeyBytes(static_cast<uint32_t>(n), kUnknownValueBytes)));
  }
  Reset();
  if (options_.background) {
    ring_ = std::make_unique<SpscRing<SampledRead>>(kRingSlots);
    thread_ = std::thread([this] { RunBackground(); });
  }
}

CommandObserver::~CommandObserver() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
  }
}

void CommandObserver::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  curves_ = std::make_unique<KrrCurves>(CurveOptions(options_), options_.ks);
  generation_++;
  bytes_.clear();
  known_bytes_ = 0;
  mean_bytes_ = 0;
  pruned_at_ = 0;
  stats_ = ObserverStats{};
  rate_lowered_.store(0, std::memory_order_relaxed);
}

void CommandObserver::RunBackground() {
  std::vector<SampledRead> batch;
  batch.reserve(kBatch);
  auto window_start = std::chrono::steady_clock::now();
  double cpu_start = ThreadCpuSeconds();
  while (!stop_.load(std::memory_order_relaxed)) {
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start >= kBudgetWindow) {
      const double cpu = ThreadCpuSeconds();
      const double wall = std::chrono::duration<double>(now - window_start).count();
      if (options_.cpu_budget > 0 && cpu - cpu_start > options_.cpu_budget * wall) {
        std::lock_guard<std::mutex> lock(mu_);
        curves_->LowerRate();
        rate_lowered_.fetch_add(1, std::memory_order_relaxed);
      }
      window_start = now;
      cpu_start = cpu;
    }
    batch.clear();
    if (ring_->PopInto(&batch, kBatch) == 0) {
      std::this_thread::sleep_for(kIdleSleep);
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const SampledRead& r : batch) {
        if (r.generation == generation_) curves_->AccessSampled(r.key, r.bytes);
      }
    }
    applied_.fetch_add(batch.size(), std::memory_order_release);
  }
}

void CommandObserver::Drain() {
  while (ring_ != nullptr && applied_.load(std::memory_order_acquire) < queued_) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// An unsampled read counts at the mean size of the sampled keys whose
// writes were seen (the curves' request bytes: an estimate of the same sum).
void CommandObserver::Read(std::string_view key) {
  stats_.reads++;
  const uint64_t h = HashString(key);
  const uint32_t mean =
      mean_bytes_ != 0                  ? mean_bytes_
      : key.size() < kGuessedKeyLengths ? guessed_bytes_[key.size()]
                                        : static_cast<uint32_t>(RedisKeyBytes(
                                              static_cast<uint32_t>(key.size()), kUnknownValueBytes));
  if (!curves_->Count(h, mean)) return;
  uint32_t bytes = mean;
  if (const auto it = bytes_.find(h); it != bytes_.end()) bytes = it->second;
  if (ring_ == nullptr) {
    curves_->AccessSampled(h, bytes);
  } else if (ring_->TryPush({h, bytes, generation_})) {
    queued_++;
  } else {
    stats_.dropped_reads++;
  }
}

void CommandObserver::Write(std::string_view key, std::string_view value) {
  stats_.writes++;
  const uint64_t h = HashString(key);
  if (!curves_->Sampled(h)) return;
  const uint32_t bytes = static_cast<uint32_t>(std::clamp<uint64_t>(
      RedisKeyBytes(static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())), 1,
      UINT32_MAX));
  auto [it, inserted] = bytes_.try_emplace(h, bytes);
  if (!inserted) known_bytes_ -= it->second;
  it->second = bytes;
  known_bytes_ += bytes;
  // The sample's halvings drop keys; their sizes go when the map has
  // doubled since the last look.
  if (bytes_.size() >= 2 * std::max<size_t>(pruned_at_, options_.min_keys)) {
    for (auto i = bytes_.begin(); i != bytes_.end();) {
      if (curves_->Sampled(i->first)) {
        ++i;
      } else {
        known_bytes_ -= i->second;
        i = bytes_.erase(i);
      }
    }
    pruned_at_ = bytes_.size();
  }
  mean_bytes_ = bytes_.empty() ? 0 : static_cast<uint32_t>(std::max<uint64_t>(
                                         known_bytes_ / bytes_.size(), 1));
}

std::vector<MissRatioCurve> CommandObserver::Curves(size_t points) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (stats_.reads == 0 || curves_->WorkingSet() == 0) return {};
  return curves_->Curves(EvenSizes(curves_->WorkingSet(), points));
}

uint64_t CommandObserver::WorkingSet() const {
  std::lock_guard<std::mutex> lock(mu_);
  return curves_->WorkingSet();
}

ObserverStats CommandObserver::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  ObserverStats s = stats_;
  s.sampled_reads = curves_->sampled_requests();
  s.rate_lowered = rate_lowered_.load(std::memory_order_relaxed);
  s.rate = curves_->rate();
  s.sized_keys = bytes_.size();
  s.memory_bytes = curves_->MemoryUsage() + bytes_.size() * (sizeof(uint64_t) + 2 * sizeof(void*)) +
                   (ring_ != nullptr ? ring_->MemoryUsage() : 0);
  return s;
}

}  // namespace symbiosis
