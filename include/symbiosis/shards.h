// ShardsMrc: SHARDS (Waldspurger et al., FAST '15), the LRU miss-ratio
// curve from a spatial sample of the keys.
//
// A key is in the sample when the hash of the key falls below a threshold
// T, a fraction R = T / 2^64 of the hash space: every key is either always
// or never sampled, so the sampled requests keep their reuse pattern, and
// a key's stack distance in the sampled stream, divided by R, estimates
// its distance in the whole one. Each sampled request stands for 1/R
// requests. SHARDS-adj: the sample's count of requests differs from R
// times the requests (a hot key in or out of the sample shifts it); the
// difference is credited as hits at distance 0, which keeps the curve's
// mass right where it matters least.
//
// Fixed rate: R is given, and the distances are scaled by the share of the
// keys the sample actually holds, counted (DistinctCounter), rather than
// by R: a sample of a million keys at R = 0.01 held 0.99 to 1.03 R of
// them, and the curve was off by as much. A floor (`min_keys`): the
// sample starts with every key and halves its rate whenever it holds
// 2 x min_keys keys, down to R (mrc/sample_threshold.h), so that a small
// trace keeps enough keys. Fixed size: at most `max_keys` sampled keys are
// tracked; one more lowers T to the largest tracked hash, drops that key,
// and rescales the histogram so far by R_new / R_old, so memory stays
// bounded whatever the working set (the paper's s_max).

#ifndef SYMBIOSIS_SHARDS_H_
#define SYMBIOSIS_SHARDS_H_

#include <cstdint>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

class DistanceHistogram;
class DistinctCounter;
class GhostLru;
class SampleThreshold;

struct ShardsOptions {
  CacheUnit unit = CacheUnit::kObjects;
  double rate = 0.01;     // R, in (0, 1]; with max_keys, the starting rate
  uint64_t max_keys = 0;  // > 0: fixed size, at most this many sampled keys
  uint64_t min_keys = 0;  // > 0 (fixed rate below 1): a floor on the sampled keys
  uint64_t seed = 0;      // salts the hash
};

class ShardsMrc final : public MrcBuilder {
 public:
  // Throws InputError for a rate outside (0, 1], or both a floor and a
  // fixed size.
  explicit ShardsMrc(const ShardsOptions& options);
  ~ShardsMrc() override;

  void Access(uint64_t key, uint32_t size) override;
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) override;
  uint64_t WorkingSet() const override;
  size_t MemoryUsage() const override;

  double rate() const;  // the current R
  // The share of the keys in the sample: counted at a fixed rate, R at a
  // fixed size.
  double KeyShare() const;

 private:
  void HalveSample();

  const ShardsOptions options_;
  bool all_ = false;  // R = 1 and no fixed size: no sampling
  std::unique_ptr<SampleThreshold> sample_;
  std::unique_ptr<GhostLru> ghost_;
  std::unique_ptr<DistanceHistogram> histogram_;
  std::unique_ptr<DistinctCounter> distinct_;  // fixed rate below 1
  // Fixed size and floor: the tracked keys by hash, largest on top.
  std::priority_queue<std::pair<uint64_t, uint64_t>> by_hash_;
  uint64_t requests_ = 0;
  uint64_t sampled_ = 0;
  double bytes_ = 0;             // requested bytes, for the adjustment
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_SHARDS_H_
