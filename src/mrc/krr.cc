#include "symbiosis/krr.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "mrc/distance_histogram.h"
#include "mrc/distinct_counter.h"
#include "mrc/sample_threshold.h"
#include "symbiosis/error.h"
#include "base/hash.h"
#include "model/ghost_lru.h"
#include "model/krr_stack.h"

namespace symbiosis {

namespace {

// `d` to `bits` significant bits, rounded up; `bits` = 0 leaves it.
uint64_t RoundUpToBits(uint64_t d, uint32_t bits) {
  const int width = 64 - std::countl_zero(d);
  if (bits == 0 || width <= static_cast<int>(bits)) return d;
  const int shift = width - static_cast<int>(bits);
  return ((d >> shift) + ((d & ((uint64_t{1} << shift) - 1)) != 0)) << shift;
}

KrrStackOptions StackOptions(const KrrOptions& o) {
  KrrStackOptions s;
  s.unit = o.unit;
  s.k = o.k;
  s.k_exponent = o.k_exponent;
  s.size_base = o.size_base;
  s.seed = o.seed;
  return s;
}

// One K's stack. K = 0 is exact LRU (GhostLru's stack distances), which no
// Redis runs: its curve shows what an LRU model of the server predicts
// (pRedis sizes Redis by LRU curves), beside K-LRU's.
class DistanceStack {
 public:
  virtual ~DistanceStack() = default;
  // The key's distance before the access, or KrrStack::kColdMiss.
  virtual uint64_t Access(uint64_t key, uint32_t size) = 0;
  virtual void Erase(const std::function<bool(uint64_t key)>& drop) = 0;
  virtual size_t entries() const = 0;
  virtual uint64_t tracked() const = 0;  // objects or bytes
  virtual size_t MemoryUsage() const = 0;
  virtual std::vector<uint64_t> Keys() const = 0;
};

static_assert(KrrStack::kColdMiss == GhostLru::kColdMiss);

class KlruDistanceStack final : public DistanceStack {
 public:
  explicit KlruDistanceStack(const KrrStackOptions& options) : stack_(options) {}
  uint64_t Access(uint64_t key, uint32_t size) override { return stack_.Access(key, size); }
  void Erase(const std::function<bool(uint64_t key)>& drop) override { stack_.Erase(drop); }
  size_t entries() const override { return stack_.entries(); }
  uint64_t tracked() const override { return stack_.tracked(); }
  size_t MemoryUsage() const override { return stack_.MemoryUsage(); }
  std::vector<uint64_t> Keys() const override { return stack_.Keys(); }

 private:
  KrrStack stack_;
};

class LruDistanceStack final : public DistanceStack {
 public:
  explicit LruDistanceStack(CacheUnit unit)
      : bytes_(unit == CacheUnit::kBytes), ghost_(GhostLru::kUnbounded, GhostOptions()) {}
  uint64_t Access(uint64_t key, uint32_t size) override {
    keys_.insert(key);
    return ghost_.Access(key, bytes_ ? size : 1);
  }
  void Erase(const std::function<bool(uint64_t key)>& drop) override {
    for (auto it = keys_.begin(); it != keys_.end();) {
      if (drop(*it)) {
        ghost_.Erase(*it);
        it = keys_.erase(it);
      } else {
        ++it;
      }
    }
  }
  size_t entries() const override { return ghost_.entries(); }
  uint64_t tracked() const override { return bytes_ ? ghost_.tracked_bytes() : ghost_.entries(); }
  size_t MemoryUsage() const override {
    return ghost_.MemoryUsage() + keys_.size() * (sizeof(uint64_t) + 2 * sizeof(void*)) +
           keys_.bucket_count() * sizeof(void*);
  }
  std::vector<uint64_t> Keys() const override { return {keys_.begin(), keys_.end()}; }

 private:
  static GhostLru::Options GhostOptions() {
    GhostLru::Options o;
    o.headroom = 1.25;  // a server's module: memory before speed (ghost_lru.h)
    return o;
  }
  const bool bytes_;
  GhostLru ghost_;
  std::unordered_set<uint64_t> keys_;  // for Erase: the sample's halvings
};

}  // namespace

// Invariants: one sample (threshold, distinct keys, request counts) for
// every K; stacks_[i] and histograms_[i] are K = ks_[i]'s, and every stack
// holds the same keys (the sampled ones seen), each at its own position.
class KrrCurves::Rep {
 public:
  Rep(const KrrOptions& o, const std::vector<uint32_t>& ks)
      : options_(o),
        ks_(ks),
        bytes_mode_(o.unit == CacheUnit::kBytes),
        all_(o.rate == 1),
        sample_(o.rate, o.min_keys),
        sample_hash_(o.seed),
        // Bounded distances (distance_bits) bound the histogram; a small
        // buffer then keeps the whole bounded.
        histograms_(ks.size(), DistanceHistogram(o.distance_bits > 0
                                                     ? 4096
                                                     : DistanceHistogram::kDefaultMinPending)),
        distinct_(o.distinct_bits > 0 && !all_
                      ? std::make_optional<DistinctCounter>(o.distinct_bits)
                      : std::nullopt) {
    for (const uint32_t k : ks) {
      KrrOptions one = o;
      one.k = k;
      if (k == 0) {
        stacks_.push_back(std::make_unique<LruDistanceStack>(o.unit));
      } else {
        stacks_.push_back(std::make_unique<KlruDistanceStack>(StackOptions(one)));
      }
    }
  }

  void Access(uint64_t key, uint32_t size) {
    if (Count(key, size)) AccessStacks(key, size);
  }

  bool Count(uint64_t key, uint32_t size) {
    requests_++;
    requested_bytes_ += size;
    if (all_) return true;
    // One hash for both: the register needs a well-mixed one, not its own.
    const uint64_t h = sample_hash_(key);
    if (distinct_) distinct_->Add(h);
    return sample_.Holds(h);
  }

  void AccessSampled(uint64_t key, uint32_t size) {
    if (Sampled(key)) AccessStacks(key, size);  // else a halving since Count dropped it
  }

  // Sampled distances; Curve scales the sizes by the sample's key share.
  void AccessStacks(uint64_t key, uint32_t size) {
    sampled_++;
    bool cold = false;
    for (size_t i = 0; i < stacks_.size(); i++) {
      const uint64_t d = stacks_[i]->Access(key, size);
      cold = d == KrrStack::kColdMiss;
      histograms_[i].Add(cold ? DistanceHistogram::kInfinite
                              : RoundUpToBits(d, options_.distance_bits),
                         size);
    }
    if (cold && sample_.Full(stacks_[0]->entries())) HalveSample();
  }

  // The floor's step: the keys beyond the halved rate leave, and what the
  // histograms hold moves into the smaller sample's units.
  void HalveSample() {
    Shrink([this] { sample_.Halve(); });
  }

  // Below R too: a caller over its CPU budget (KrrCurves::LowerRate).
  void LowerRate() {
    if (all_) return;  // R = 1 asked for every key
    const double rate = sample_.rate();
    Shrink([this, rate] {
      sample_.LowerTo(std::max<uint64_t>(static_cast<uint64_t>(std::ldexp(rate / 2, 64)), 1));
    });
  }

  template <typename Lower>
  void Shrink(const Lower& lower) {
    const double before = static_cast<double>(stacks_[0]->entries());
    lower();
    const auto drop = [this](uint64_t key) { return !sample_.Holds(sample_hash_(key)); };
    for (auto& stack : stacks_) stack->Erase(drop);
    const double kept = std::max(static_cast<double>(stacks_[0]->entries()), 1.0) / before;
    for (auto& h : histograms_) h.Shrink(kept);
  }

  MissRatioCurve Curve(size_t i, const std::vector<uint64_t>& sizes) const {
    MissRatioCurve curve;
    curve.unit = options_.unit;
    curve.sizes = sizes;
    curve.requests = requests_;
    curve.sampled_requests = sampled_;
    curve.sample_rate = rate();
    if (all_) {
      histograms_[i].Fill(bytes_mode_, &curve);
      return curve;
    }
    histograms_[i].FillSampled(bytes_mode_, KeyShare(), static_cast<double>(requests_),
                               requested_bytes_, &curve);
    return curve;
  }

  uint64_t WorkingSet() const {
    return static_cast<uint64_t>(static_cast<double>(stacks_[0]->tracked()) / KeyShare());
  }

  // The share of the keys in the sample, counted (see DistinctCounter).
  double KeyShare() const {
    if (all_ || sample_.HoldsAll()) return 1;
    if (!distinct_) return sample_.rate();
    return distinct_->ShareOf(static_cast<double>(stacks_[0]->entries()), sample_.rate());
  }

  double rate() const { return all_ ? 1 : sample_.rate(); }

  size_t MemoryUsage() const {
    size_t total = distinct_ ? distinct_->MemoryUsage() : 0;
    for (size_t i = 0; i < stacks_.size(); i++) {
      total += stacks_[i]->MemoryUsage() + histograms_[i].MemoryUsage();
    }
    return total;
  }

  bool Sampled(uint64_t key) const { return all_ || sample_.Holds(sample_hash_(key)); }
  const std::vector<uint32_t>& ks() const { return ks_; }
  uint64_t requests() const { return requests_; }
  uint64_t sampled_requests() const { return sampled_; }
  std::vector<uint64_t> StackKeys() const { return stacks_[0]->Keys(); }  // K >= 1: from the top

 private:
  const KrrOptions options_;
  const std::vector<uint32_t> ks_;
  const bool bytes_mode_;
  const bool all_;  // R = 1: no sampling
  SampleThreshold sample_;
  const SeededHash64 sample_hash_;  // Hash64(seed, key)
  std::vector<std::unique_ptr<DistanceStack>> stacks_;
  std::vector<DistanceHistogram> histograms_;
  std::optional<DistinctCounter> distinct_;  // every key's when sampling; none at bits 0
  uint64_t requests_ = 0;
  uint64_t sampled_ = 0;
  double requested_bytes_ = 0;
};

namespace {

void CheckOptions(const KrrOptions& options) {
  if (!(options.rate > 0 && options.rate <= 1)) {
    throw InputError("KRR sampling rate " + std::to_string(options.rate) +
                     " is not in (0, 1]; use e.g. 0.01, or 1 for no sampling");
  }
  if (options.distinct_bits != 0 && (options.distinct_bits < 4 || options.distinct_bits > 16)) {
    throw InputError("KRR distinct_bits " + std::to_string(options.distinct_bits) +
                     " is not from 4 to 16, or 0 for no count; use e.g. 16 (the default)");
  }
  if (options.distance_bits > 32) {
    throw InputError("KRR distance_bits " + std::to_string(options.distance_bits) +
                     " is above 32; use e.g. 7, or 0 for exact distances");
  }
}

}  // namespace

KrrCurves::KrrCurves(const KrrOptions& options, const std::vector<uint32_t>& ks) {
  CheckOptions(options);
  if (ks.empty()) throw InputError("KRR curves need at least one K");
  rep_ = std::make_unique<Rep>(options, ks);  // KrrStack checks the rest
}
KrrCurves::~KrrCurves() = default;
void KrrCurves::Access(uint64_t key, uint32_t size) { rep_->Access(key, size); }
bool KrrCurves::Count(uint64_t key, uint32_t size) { return rep_->Count(key, size); }
void KrrCurves::AccessSampled(uint64_t key, uint32_t size) { rep_->AccessSampled(key, size); }
void KrrCurves::LowerRate() { rep_->LowerRate(); }
bool KrrCurves::Sampled(uint64_t key) const { return rep_->Sampled(key); }
std::vector<MissRatioCurve> KrrCurves::Curves(const std::vector<uint64_t>& sizes) const {
  std::vector<MissRatioCurve> out;
  for (size_t i = 0; i < rep_->ks().size(); i++) out.push_back(rep_->Curve(i, sizes));
  return out;
}
const std::vector<uint32_t>& KrrCurves::ks() const { return rep_->ks(); }
uint64_t KrrCurves::WorkingSet() const { return rep_->WorkingSet(); }
double KrrCurves::rate() const { return rep_->rate(); }
uint64_t KrrCurves::requests() const { return rep_->requests(); }
uint64_t KrrCurves::sampled_requests() const { return rep_->sampled_requests(); }
size_t KrrCurves::MemoryUsage() const { return rep_->MemoryUsage(); }

KrrMrc::KrrMrc(const KrrOptions& options) : MrcBuilder(options.unit) {
  CheckOptions(options);
  if (options.k == 0) throw InputError("K-LRU's K must be at least 1 (Redis's default is 5)");
  rep_ = std::make_unique<KrrCurves::Rep>(options, std::vector<uint32_t>{options.k});
}

KrrMrc::~KrrMrc() = default;

void KrrMrc::Access(uint64_t key, uint32_t size) { rep_->Access(key, size); }
MissRatioCurve KrrMrc::Curve(const std::vector<uint64_t>& sizes) { return rep_->Curve(0, sizes); }
uint64_t KrrMrc::WorkingSet() const { return rep_->WorkingSet(); }
double KrrMrc::rate() const { return rep_->rate(); }
size_t KrrMrc::MemoryUsage() const { return rep_->MemoryUsage(); }
std::vector<uint64_t> KrrMrc::StackKeys() const { return rep_->StackKeys(); }

}  // namespace symbiosis
