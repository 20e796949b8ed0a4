// KrrMrc: KRR (Wang, Yang, Wang; ICPP '21, IEEE TCC '23), the miss-ratio
// curve of K-LRU, the random-sampling LRU of Redis (evict the least
// recently used of K keys drawn at random), every capacity from one pass.
//
// Why it works. In a K-LRU cache of C keys, the key of recency rank d is
// evicted with probability (d^K - (d-1)^K) / C^K: the chance that it is
// the oldest of the K drawn. KRR keeps a stack in which the accessed key
// goes to the top and the displaced keys fall down by the same law: from
// the accessed key's position i, the key at x = ceil(r^(1/K') (i - 1)),
// r uniform in (0, 1], moves to i, then the key at x' drawn the same way
// below x moves to x, and so on until position 1, which takes the
// accessed key (the backward update; expected O(K' log M) moves). A key keeps its position i with probability
// ((i - 1) / i)^K', so a K-LRU cache of C keys holds, in law, the top C
// positions, and an access at position i hits exactly the caches of at
// least i keys. K' = K^1.4 rather than K corrects the stack's tendency to
// push recently used keys down too fast (the paper's correction; with
// K' = K the error was 4-6x larger on CloudPhysics at K = 5 and 16).
//
// Bytes: the distance of position i is the bytes held by positions 1..i.
// They are kept exactly at positions q_0 = 1 < q_1 < ... spaced by a
// factor `size_base` and interpolated between (the paper's size array);
// a move changes the sums of whole ranges of positions by the same
// amount, so an update costs O(moves + log M).
//
// Spatial sampling (rate < 1): as SHARDS (shards.h), only keys whose hash
// falls below R of the hash space enter the stack; distances are divided
// by the share of the keys the sample holds (counted), and the sample's
// number of requests is corrected (SHARDS-adj). With `min_keys`, the
// sample starts with every key and halves its rate whenever it holds
// 2 x min_keys, down to R (mrc/sample_threshold.h): the halving drops the
// keys beyond the new rate from the stack, the others close up, and the
// distances so far shrink with the keys (DistanceHistogram::Shrink).
//
// Memory: about 20 bytes per key in the stack (sampled keys only).

#ifndef SYMBIOSIS_KRR_H_
#define SYMBIOSIS_KRR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

struct KrrOptions {
  CacheUnit unit = CacheUnit::kObjects;
  uint32_t k = 5;            // keys drawn per eviction (Redis's maxmemory-samples)
  double k_exponent = 1.4;   // K' = K^k_exponent; 1: no correction
  double rate = 1;           // spatial sampling rate R in (0, 1]
  uint64_t min_keys = 0;     // > 0 with R < 1: a floor on the sampled keys
  double size_base = 1.2;    // bytes mode: spacing of the exact positions
  // > 0: distances are kept to this many significant bits, rounded up (a
  // size error under 2^(1 - bits)), so the histogram holds at most
  // ~64 x 2^bits distances; 0: exact. In bytes almost every distance is distinct, and
  // exact histograms grow with the sampled requests (a server's module,
  // which runs for weeks, keeps 7).
  uint32_t distance_bits = 0;
  // With sampling: 2^distinct_bits registers count the distinct keys, whose
  // share the sample holds (a standard error of 1.04 / 2^(bits/2): 0.4% at
  // 16). From 4 to 16, or 0: no count, the share taken as the rate (the
  // sample's own error, about 1 / sqrt(its keys): 1.6% at the floor of
  // 4,096, as large as 12 bits' count). A server's module keeps 0: the
  // register's random load missed the CPU's cache on most commands
  // (docs/decisions/module-distinct-count.md).
  uint32_t distinct_bits = 16;
  uint64_t seed = 1;
};

// KrrCurves: KRR's curves for several K from one pass and one sample: the
// sample (its keys, its floor's halvings), the distinct-key count and the
// requests are shared; each K has its stack and its histogram, so an
// unsampled request costs what it costs one KrrMrc. What a Redis server's
// module keeps, so that kRedis can choose each tenant's K (krr_test.cc
// checks each curve against a KrrMrc of its K alone).
class KrrCurves {
 public:
  // `options.k` is ignored: one curve per K of `ks`. A K of 0 is exact LRU
  // on the same sample: what an LRU model of the server predicts (pRedis
  // sizes Redis by LRU curves), which no Redis runs. Throws InputError as
  // KrrMrc, or for no K.
  KrrCurves(const KrrOptions& options, const std::vector<uint32_t>& ks);
  ~KrrCurves();
  KrrCurves(const KrrCurves&) = delete;
  KrrCurves& operator=(const KrrCurves&) = delete;

  void Access(uint64_t key, uint32_t size);
  // Whether `key` is in the sample now (a halving may drop it later).
  bool Sampled(uint64_t key) const;

  // Access in two halves, for a server that must not wait on the stacks:
  // the thread that sees the requests calls Count for every one (a count,
  // a distinct-key register and a compare) and hands those it returns true
  // for, in order, to AccessSampled on one other thread, which updates the
  // stacks and may halve the sample. Count and AccessSampled may run at
  // once; every other member, Curves included, needs AccessSampled's
  // thread quiet (the caller's lock), and Count's thread is the only one
  // that may call them.
  bool Count(uint64_t key, uint32_t size);
  void AccessSampled(uint64_t key, uint32_t size);
  // Halves the sample's rate, below R if need be, for a caller whose
  // stacks cost more than it may spend: the keys beyond leave the stacks
  // and the curves so far shrink with them, as in a floor's halving. At
  // R = 1 (every key asked for) nothing. AccessSampled's thread (or
  // Access's) only.
  void LowerRate();
  // One curve per K, in ks() order. REQUIRES: sizes ascending, each > 0.
  std::vector<MissRatioCurve> Curves(const std::vector<uint64_t>& sizes) const;
  const std::vector<uint32_t>& ks() const;
  uint64_t WorkingSet() const;
  double rate() const;
  uint64_t requests() const;
  uint64_t sampled_requests() const;
  size_t MemoryUsage() const;

 private:
  friend class KrrMrc;
  class Rep;
  std::unique_ptr<Rep> rep_;
};

class KrrMrc final : public MrcBuilder {
 public:
  // Throws InputError for k = 0, a rate outside (0, 1], a k_exponent
  // outside (0, 4] or a size_base outside (1, 2].
  explicit KrrMrc(const KrrOptions& options);
  ~KrrMrc() override;

  void Access(uint64_t key, uint32_t size) override;
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) override;
  uint64_t WorkingSet() const override;
  size_t MemoryUsage() const override;

  double rate() const;  // the sampling rate now: R, or above it on a floor

  // The stack from the top, as keys (for tests).
  std::vector<uint64_t> StackKeys() const;

 private:
  std::unique_ptr<KrrCurves::Rep> rep_;  // of one K
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_KRR_H_
