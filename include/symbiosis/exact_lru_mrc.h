// ExactLruMrc: the exact miss-ratio curve of LRU, every capacity from one
// pass (Mattson's stack algorithm on GhostLru's byte stack distances).
//
// Cost: O(log n) per request, n the distinct keys: 7.07 M requests/s here
// on 1M keys, objects (bench/mrc.md); memory about 40 bytes per distinct
// key plus 24 per distinct distance.

#ifndef SYMBIOSIS_EXACT_LRU_MRC_H_
#define SYMBIOSIS_EXACT_LRU_MRC_H_

#include <memory>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

class DistanceHistogram;
class GhostLru;

class ExactLruMrc final : public MrcBuilder {
 public:
  explicit ExactLruMrc(CacheUnit unit);
  ~ExactLruMrc() override;

  void Access(uint64_t key, uint32_t size) override;
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) override;
  uint64_t WorkingSet() const override;
  size_t MemoryUsage() const override;

 private:
  void Flush() const;

  std::unique_ptr<GhostLru> ghost_;
  std::unique_ptr<DistanceHistogram> histogram_;
  // Requests not yet given to the ghost: GhostLru::AccessBatch overlaps
  // the next keys' cache misses with the current update.
  mutable std::vector<uint64_t> keys_;
  mutable std::vector<uint32_t> sizes_;
  mutable std::vector<uint32_t> charges_;
  mutable std::vector<uint64_t> distances_;
  uint64_t requests_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_EXACT_LRU_MRC_H_
