// ChangeDetector: whether Stable's windows show that the workload changed
// (docs/decisions/change-detection.md, change-noise.md).
//
// After a resize the caches warm for a while: the reference follows L_e
// down as long as it improves; then it becomes the mean of the next
// `base_windows` windows, frozen, with their spread (the best single
// window would make any noisy one look like a change). `confirm_windows`
// windows in a row that differ from it beyond the change threshold and
// floor (the caller's `changed`) and beyond kNoise times the spread of one
// window against that mean are a change. Single-threaded.

#ifndef SYMBIOSIS_ONLINE_CHANGE_DETECTOR_H_
#define SYMBIOSIS_ONLINE_CHANGE_DETECTOR_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "online/event_totals.h"

namespace symbiosis {

class ChangeDetector {
 public:
  // A window's L_e with the costs of the moment.
  using LatencyOf = std::function<double(const WindowRatios&)>;
  // Whether a window differs from the reference beyond the change
  // threshold and floor.
  using Differs = std::function<bool(const WindowRatios& window, const WindowRatios& reference)>;

  // Standard deviations of the reference windows' spread within which a
  // window is no change.
  static constexpr double kNoise = 2;

  enum class Verdict {
    kNone,     // nothing to act on
    kFrozen,   // the window froze the reference
    kChanged,  // confirm_windows in a row changed
  };

  // REQUIRES: base_windows >= 1, confirm_windows >= 1.
  ChangeDetector(uint32_t base_windows, uint32_t confirm_windows, LatencyOf latency,
                 Differs differs);

  // Judges one window.
  Verdict Add(const WindowRatios& window);
  // Forgets the reference: the next window starts one (after a resize).
  void Reset() { reference_.reset(); }
  // Follows L_e down again from `window` (a change seen while the caller
  // backs off from rounds).
  void Reanchor(const WindowRatios& window);

  // The reference, frozen or following; none after Reset.
  const std::optional<WindowRatios>& reference() const { return reference_; }
  // One window's L_e spread about the frozen reference (0 until it froze).
  double spread() const { return spread_; }

 private:
  const uint32_t base_windows_;
  const uint32_t confirm_windows_;
  const LatencyOf latency_;
  const Differs differs_;

  std::optional<WindowRatios> reference_;
  bool following_ = false;
  WindowRatios base_sum_;      // the windows the reference averages
  WindowSpread base_latency_;  // their L_e; it freezes at base_windows_ of them
  double spread_ = 0;
  uint32_t changed_ = 0;  // windows in a row beyond it
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_CHANGE_DETECTOR_H_
