#include "symbiosis/shards.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "mrc/distance_histogram.h"
#include "mrc/distinct_counter.h"
#include "mrc/sample_threshold.h"
#include "symbiosis/error.h"
#include "model/ghost_lru.h"
#include "base/hash.h"

namespace symbiosis {

ShardsMrc::ShardsMrc(const ShardsOptions& options)
    : MrcBuilder(options.unit),
      options_(options),
      ghost_(std::make_unique<GhostLru>()),
      histogram_(std::make_unique<DistanceHistogram>()) {
  if (!(options.rate > 0 && options.rate <= 1)) {
    throw InputError("SHARDS sampling rate " + std::to_string(options.rate) +
                     " is not in (0, 1]; use e.g. 0.01");
  }
  if (options.max_keys > 0 && options.min_keys > 0) {
    throw InputError("SHARDS takes a fixed size (at most max_keys sampled keys) or a floor "
                     "(at least min_keys), not both; drop one");
  }
  all_ = options.rate == 1 && options.max_keys == 0;
  sample_ = std::make_unique<SampleThreshold>(options.rate, options.min_keys);
  if (!all_ && options.max_keys == 0) distinct_ = std::make_unique<DistinctCounter>();
}

ShardsMrc::~ShardsMrc() = default;

double ShardsMrc::rate() const { return all_ ? 1.0 : sample_->rate(); }

double ShardsMrc::KeyShare() const {
  if (!distinct_ || sample_->HoldsAll()) return rate();
  return distinct_->ShareOf(static_cast<double>(ghost_->entries()), rate());
}

void ShardsMrc::Access(uint64_t key, uint32_t size) {
  requests_++;
  bytes_ += size;
  if (distinct_) distinct_->Add(Mix64(key));
  const uint64_t hash = Hash64(options_.seed, key);
  if (!all_ && !sample_->Holds(hash)) return;
  sampled_++;
  const uint32_t charge = unit() == CacheUnit::kBytes ? size : 1;
  const uint64_t d = ghost_->Access(key, charge);
  if (d == GhostLru::kColdMiss) {
    histogram_->Add(DistanceHistogram::kInfinite, size);
    if (options_.max_keys > 0 || options_.min_keys > 0) by_hash_.emplace(hash, key);
  } else if (distinct_) {
    histogram_->Add(d, size);  // scaled at Curve, by the key share
  } else {
    histogram_->Add(static_cast<uint64_t>(std::ceil(static_cast<double>(d) / rate())), size);
  }
  if (sample_->Full(ghost_->entries())) HalveSample();
  while (options_.max_keys > 0 && ghost_->entries() > options_.max_keys) {
    const auto [largest, dropped] = by_hash_.top();
    by_hash_.pop();
    ghost_->Erase(dropped);
    const double old_rate = rate();
    sample_->LowerTo(largest);
    histogram_->Scale(rate() / old_rate);
  }
}

// The floor's step: the keys beyond the halved rate leave, and what the
// histogram holds (in the sample's units) moves into the smaller sample's.
void ShardsMrc::HalveSample() {
  const double before = static_cast<double>(ghost_->entries());
  sample_->Halve();
  while (!by_hash_.empty() && !sample_->Holds(by_hash_.top().first)) {
    ghost_->Erase(by_hash_.top().second);
    by_hash_.pop();
  }
  histogram_->Shrink(std::max(static_cast<double>(ghost_->entries()), 1.0) / before);
}

MissRatioCurve ShardsMrc::Curve(const std::vector<uint64_t>& sizes) {
  MissRatioCurve curve;
  curve.unit = unit();
  curve.sizes = sizes;
  curve.requests = requests_;
  curve.sampled_requests = sampled_;
  curve.sample_rate = rate();
  const bool bytes = unit() == CacheUnit::kBytes;
  if (all_) {
    histogram_->Fill(bytes, &curve);
    return curve;
  }
  // SHARDS-adj: the sample should hold its share of the requests and of
  // their bytes; the shortfall or excess counts as hits at distance 0.
  // With a fixed size the histogram was rescaled to the current R, and so
  // is the expectation; at a fixed rate the distances are the sample's,
  // compared with the sizes scaled by the key share.
  if (distinct_) {
    histogram_->FillSampled(bytes, KeyShare(), requests_, bytes_, &curve);
    return curve;
  }
  const double r = rate();
  histogram_->Fill(bytes, &curve, r * requests_, r * bytes_);
  return curve;
}

uint64_t ShardsMrc::WorkingSet() const {
  return static_cast<uint64_t>(static_cast<double>(ghost_->tracked_bytes()) / KeyShare());
}

size_t ShardsMrc::MemoryUsage() const {
  return ghost_->MemoryUsage() + histogram_->MemoryUsage() +
         (distinct_ ? distinct_->MemoryUsage() : 0) +
         by_hash_.size() * sizeof(std::pair<uint64_t, uint64_t>);
}

}  // namespace symbiosis
