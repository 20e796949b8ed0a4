#include "symbiosis/krr.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "mrc/distance_histogram.h"
#include "mrc/distinct_counter.h"
#include "mrc/sample_threshold.h"
#include "symbiosis/error.h"
#include "base/hash.h"
#include "model/krr_stack.h"

namespace symbiosis {

namespace {

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

class KrrMrc::Rep {
 public:
  explicit Rep(const KrrOptions& o)
      : options_(o),
        bytes_mode_(o.unit == CacheUnit::kBytes),
        all_(o.rate == 1),
        sample_(o.rate, o.min_keys),
        stack_(StackOptions(o)) {}

  void Access(uint64_t key, uint32_t size) {
    requests_++;
    requested_bytes_ += size;
    if (!all_) {
      distinct_.Add(Mix64(key));
      if (!sample_.Holds(Hash64(options_.seed, key))) return;
    }
    sampled_++;
    // Sampled distances; Curve scales the sizes by the sample's key share.
    const uint64_t d = stack_.Access(key, size);
    if (d != KrrStack::kColdMiss) {
      histogram_.Add(d, size);
      return;
    }
    histogram_.Add(DistanceHistogram::kInfinite, size);
    if (sample_.Full(stack_.entries())) HalveSample();
  }

  // The floor's step: the keys beyond the halved rate leave, and what the
  // histogram holds moves into the smaller sample's units.
  void HalveSample() {
    const double before = static_cast<double>(stack_.entries());
    sample_.Halve();
    stack_.Erase([this](uint64_t key) { return !sample_.Holds(Hash64(options_.seed, key)); });
    histogram_.Shrink(std::max(static_cast<double>(stack_.entries()), 1.0) / before);
  }

  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) const {
    MissRatioCurve curve;
    curve.unit = options_.unit;
    curve.sizes = sizes;
    curve.requests = requests_;
    curve.sampled_requests = sampled_;
    curve.sample_rate = rate();
    if (all_) {
      histogram_.Fill(bytes_mode_, &curve);
      return curve;
    }
    histogram_.FillSampled(bytes_mode_, KeyShare(), static_cast<double>(requests_),
                           requested_bytes_, &curve);
    return curve;
  }

  uint64_t WorkingSet() const {
    return static_cast<uint64_t>(static_cast<double>(stack_.tracked()) / KeyShare());
  }

  // The share of the keys in the sample, counted (see DistinctCounter).
  double KeyShare() const {
    if (all_ || sample_.HoldsAll()) return 1;
    return distinct_.ShareOf(static_cast<double>(stack_.entries()), sample_.rate());
  }

  double rate() const { return all_ ? 1 : sample_.rate(); }

  size_t MemoryUsage() const {
    return stack_.MemoryUsage() + histogram_.MemoryUsage() +
           (all_ ? 0 : distinct_.MemoryUsage());
  }

  std::vector<uint64_t> StackKeys() const { return stack_.Keys(); }

 private:
  const KrrOptions options_;
  const bool bytes_mode_;
  const bool all_;  // R = 1: no sampling
  SampleThreshold sample_;
  KrrStack stack_;
  DistanceHistogram histogram_;
  DistinctCounter distinct_;  // every key's, when sampling
  uint64_t requests_ = 0;
  uint64_t sampled_ = 0;
  double requested_bytes_ = 0;
};

KrrMrc::KrrMrc(const KrrOptions& options) : MrcBuilder(options.unit) {
  if (!(options.rate > 0 && options.rate <= 1)) {
    throw InputError("KRR sampling rate " + std::to_string(options.rate) +
                     " is not in (0, 1]; use e.g. 0.01, or 1 for no sampling");
  }
  rep_ = std::make_unique<Rep>(options);  // KrrStack checks the rest
}

KrrMrc::~KrrMrc() = default;

void KrrMrc::Access(uint64_t key, uint32_t size) { rep_->Access(key, size); }
MissRatioCurve KrrMrc::Curve(const std::vector<uint64_t>& sizes) { return rep_->Curve(sizes); }
uint64_t KrrMrc::WorkingSet() const { return rep_->WorkingSet(); }
double KrrMrc::rate() const { return rep_->rate(); }
size_t KrrMrc::MemoryUsage() const { return rep_->MemoryUsage(); }
std::vector<uint64_t> KrrMrc::StackKeys() const { return rep_->StackKeys(); }

}  // namespace symbiosis
