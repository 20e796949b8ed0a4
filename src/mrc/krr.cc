#include "symbiosis/krr.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <string>

#include "mrc/distance_histogram.h"
#include "mrc/distinct_counter.h"
#include "mrc/sample_threshold.h"
#include "symbiosis/error.h"
#include "base/hash.h"
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
        // Bounded distances (distance_bits) bound the histogram; a small
        // buffer then keeps the whole bounded.
        histograms_(ks.size(), DistanceHistogram(o.distance_bits > 0
                                                     ? 4096
                                                     : DistanceHistogram::kDefaultMinPending)) {
    for (const uint32_t k : ks) {
      KrrOptions one = o;
      one.k = k;
      stacks_.push_back(std::make_unique<KrrStack>(StackOptions(one)));
    }
  }

  void Access(uint64_t key, uint32_t size) {
    if (Count(key, size)) AccessStacks(key, size);
  }

  bool Count(uint64_t key, uint32_t size) {
    requests_++;
    requested_bytes_ += size;
    if (all_) return true;
    distinct_.Add(Mix64(key));
    return sample_.Holds(Hash64(options_.seed, key));
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
    const double before = static_cast<double>(stacks_[0]->entries());
    sample_.Halve();
    const auto drop = [this](uint64_t key) { return !sample_.Holds(Hash64(options_.seed, key)); };
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
    return distinct_.ShareOf(static_cast<double>(stacks_[0]->entries()), sample_.rate());
  }

  double rate() const { return all_ ? 1 : sample_.rate(); }

  size_t MemoryUsage() const {
    size_t total = all_ ? 0 : distinct_.MemoryUsage();
    for (size_t i = 0; i < stacks_.size(); i++) {
      total += stacks_[i]->MemoryUsage() + histograms_[i].MemoryUsage();
    }
    return total;
  }

  bool Sampled(uint64_t key) const { return all_ || sample_.Holds(Hash64(options_.seed, key)); }
  const std::vector<uint32_t>& ks() const { return ks_; }
  uint64_t requests() const { return requests_; }
  uint64_t sampled_requests() const { return sampled_; }
  std::vector<uint64_t> StackKeys() const { return stacks_[0]->Keys(); }

 private:
  const KrrOptions options_;
  const std::vector<uint32_t> ks_;
  const bool bytes_mode_;
  const bool all_;  // R = 1: no sampling
  SampleThreshold sample_;
  std::vector<std::unique_ptr<KrrStack>> stacks_;
  std::vector<DistanceHistogram> histograms_;
  DistinctCounter distinct_;  // every key's, when sampling
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
