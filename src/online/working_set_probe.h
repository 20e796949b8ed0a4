// WorkingSetProbe: how many distinct blocks a stretch of accesses touched,
// for the one layout whose L_e cannot see the working set change: no
// application cache and no device reads, where every access is a
// page-cache hit whatever the working set's size (docs/online-controller.md).
//
// Linear counting (Whang et al., TODS 1990): each block sets one bit of m
// chosen by a hash; n blocks leave about m e^(-n/m) bits clear, so n is
// estimated as -m ln(clear / m). With m = 2^15 (4 KiB, to stay small in
// the engine's caches) the standard error is below 1% up to n = 3m, 98,000
// blocks. Only sampled blocks are fed (the Controller's spatial sample), so
// a count stands for the sample's share of the working set: a stretch of
// 800,000 accesses sees at most 12,500 of them at the default R of 1/64,
// and R is raised only for data sets whose sample holds few blocks.
//
// Thread-safe: Add may run concurrently from any number of threads; a
// block already counted costs one relaxed load. Clear and Distinct race
// with Add only at the stretch's edges, which blurs the count by the
// accesses in flight.

#ifndef SYMBIOSIS_ONLINE_WORKING_SET_PROBE_H_
#define SYMBIOSIS_ONLINE_WORKING_SET_PROBE_H_

#include <array>
#include <atomic>
#include <cstdint>

#include "symbiosis/block.h"

namespace symbiosis {

class WorkingSetProbe {
 public:
  static constexpr int kBitsLog2 = 15;

  void Add(const Block& block);
  // The distinct blocks added since the last Clear, estimated.
  double Distinct() const;
  void Clear();

 private:
  static constexpr size_t kWords = (size_t{1} << kBitsLog2) / 64;
  std::array<std::atomic<uint64_t>, kWords> bits_{};
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_WORKING_SET_PROBE_H_
