#include "online/change_detector.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace symbiosis {

ChangeDetector::ChangeDetector(uint32_t base_windows, uint32_t confirm_windows,
                               LatencyOf latency, Differs differs)
    : base_windows_(std::max<uint32_t>(base_windows, 1)),
      confirm_windows_(std::max<uint32_t>(confirm_windows, 1)),
      latency_(std::move(latency)),
      differs_(std::move(differs)) {}

void ChangeDetector::Reanchor(const WindowRatios& window) {
  reference_ = window;
  following_ = true;
}

ChangeDetector::Verdict ChangeDetector::Add(const WindowRatios& m) {
  const double latency = latency_(m);
  if (!reference_) {
    Reanchor(m);
    return Verdict::kNone;
  }
  if (following_) {
    if (latency < latency_(*reference_)) {
      reference_ = m;
      return Verdict::kNone;
    }
    following_ = false;
    base_sum_ = WindowRatios{0, 0, 0};
    base_latency_ = WindowSpread{};
    changed_ = 0;
  }
  if (base_latency_.windows < base_windows_) {
    base_sum_.Add(m);
    base_latency_.Add(latency);
    if (base_latency_.windows < base_windows_) return Verdict::kNone;
    reference_ = base_sum_.DividedBy(base_latency_.windows);
    spread_ = base_latency_.Deviation();
    return Verdict::kFrozen;
  }
  // One window against the mean of base_windows_: its deviation's spread
  // is the windows' times sqrt(1 + 1 / n).
  const double noise = kNoise * spread_ * std::sqrt(1 + 1.0 / base_windows_);
  if (!differs_(m, *reference_) || std::fabs(latency - latency_(*reference_)) <= noise) {
    changed_ = 0;
    return Verdict::kNone;
  }
  if (++changed_ < confirm_windows_) return Verdict::kNone;
  changed_ = 0;
  return Verdict::kChanged;
}

}  // namespace symbiosis
