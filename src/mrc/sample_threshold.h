// SampleThreshold: which keys a spatial sample holds (SHARDS's sampling,
// shards.h): those whose hash falls below a threshold, a fraction R of the
// hash space, so a key is either always or never in the sample.
//
// A floor on the sample's keys. A sample's error falls as one over the
// square root of the keys it holds (Waldspurger et al.), so a rate chosen
// for a large trace leaves too few keys of a small one: at R = 0.01 the
// 48,974 objects of the CloudPhysics trace left about 490 keys, and both
// KRR and SHARDS were off by 0.005 to 0.025 (MAE over 20 seeds, seed for
// seed alike: the sample's error, not the model's). With `min_keys`, the
// sample starts with every key and halves its rate each time it holds
// 2 x min_keys keys, down to R: a large trace ends at R, a small one with
// min_keys to 2 x min_keys keys. KRR's authors do the same by hand (R =
// 0.01 instead of 0.001 below 8M objects, so at least 8,000 keys).

#ifndef SYMBIOSIS_MRC_SAMPLE_THRESHOLD_H_
#define SYMBIOSIS_MRC_SAMPLE_THRESHOLD_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace symbiosis {

class SampleThreshold {
 public:
  // REQUIRES: 0 < rate <= 1.
  SampleThreshold(double rate, uint64_t min_keys)
      : target_(ThresholdOf(rate)),
        min_keys_(rate < 1 ? min_keys : 0),
        threshold_(min_keys_ > 0 ? kAll : target_) {}

  // Holds and rate may run on one thread while another halves the rate
  // (KrrCurves' two-thread use): the threshold is a relaxed atomic, a
  // plain load on x86. A key dropped by a halving the reader has not seen
  // yet is dropped again by the writer's own check.
  bool Holds(uint64_t hash) const {
    const uint64_t t = threshold();
    return t == kAll || hash < t;
  }
  bool HoldsAll() const { return threshold() == kAll; }
  double rate() const {
    const uint64_t t = threshold();
    return t == kAll ? 1.0 : std::ldexp(static_cast<double>(t), -64);
  }

  // Whether a sample of `keys` keys should halve its rate now.
  bool Full(size_t keys) const {
    return min_keys_ > 0 && keys >= 2 * min_keys_ && threshold() > target_;
  }

  // Halves the rate, not below R. REQUIRES: Full().
  void Halve() {
    const uint64_t t = threshold();
    threshold_.store(std::max(t == kAll ? uint64_t{1} << 63 : t / 2, target_),
                     std::memory_order_relaxed);
  }

  // Lowers the threshold to `threshold` (fixed-size SHARDS: to the largest
  // hash it keeps; a sampler over its CPU budget: below R). REQUIRES: below
  // the present one.
  void LowerTo(uint64_t threshold) { threshold_.store(threshold, std::memory_order_relaxed); }

 private:
  static constexpr uint64_t kAll = ~uint64_t{0};
  static uint64_t ThresholdOf(double rate) {
    return rate >= 1 ? kAll : static_cast<uint64_t>(std::ldexp(rate, 64));
  }

  uint64_t threshold() const { return threshold_.load(std::memory_order_relaxed); }

  const uint64_t target_;  // R's threshold
  const uint64_t min_keys_;  // 0: the rate is R from the start
  std::atomic<uint64_t> threshold_;  // kAll: every key
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_MRC_SAMPLE_THRESHOLD_H_
