#include "symbiosis/exact_lru_mrc.h"

#include "mrc/distance_histogram.h"
#include "model/ghost_lru.h"

namespace symbiosis {

namespace {
constexpr size_t kBatch = 4096;
}  // namespace

ExactLruMrc::ExactLruMrc(CacheUnit unit)
    : MrcBuilder(unit),
      ghost_(std::make_unique<GhostLru>()),
      histogram_(std::make_unique<DistanceHistogram>()) {
  keys_.reserve(kBatch);
  sizes_.reserve(kBatch);
  charges_.reserve(kBatch);
  distances_.resize(kBatch);
}

ExactLruMrc::~ExactLruMrc() = default;

void ExactLruMrc::Access(uint64_t key, uint32_t size) {
  requests_++;
  keys_.push_back(key);
  sizes_.push_back(size);
  // In objects mode every key weighs 1, so the byte distance counts keys.
  charges_.push_back(unit() == CacheUnit::kBytes ? size : 1);
  if (keys_.size() == kBatch) Flush();
}

void ExactLruMrc::Flush() const {
  ghost_->AccessBatch(keys_.data(), charges_.data(), keys_.size(), distances_.data());
  for (size_t i = 0; i < keys_.size(); i++) {
    histogram_->Add(distances_[i] == GhostLru::kColdMiss ? DistanceHistogram::kInfinite
                                                         : distances_[i],
                    sizes_[i]);
  }
  keys_.clear();
  sizes_.clear();
  charges_.clear();
}

MissRatioCurve ExactLruMrc::Curve(const std::vector<uint64_t>& sizes) {
  Flush();
  MissRatioCurve curve;
  curve.unit = unit();
  curve.sizes = sizes;
  curve.requests = curve.sampled_requests = requests_;
  histogram_->Fill(unit() == CacheUnit::kBytes, &curve);
  return curve;
}

uint64_t ExactLruMrc::WorkingSet() const {
  Flush();
  return ghost_->tracked_bytes();
}

size_t ExactLruMrc::MemoryUsage() const {
  return ghost_->MemoryUsage() + histogram_->MemoryUsage() +
         keys_.capacity() * (sizeof(uint64_t) * 2 + sizeof(uint32_t) * 2);
}

}  // namespace symbiosis
