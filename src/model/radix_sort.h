// RadixSortBy: an LSD radix sort on a 64-bit key, for the stack distances
// of hit curves and miss-ratio curves. Private to the library.
//
// It sorts on the bits that vary between the keys only, in digits of at
// most 11 bits (a count table that stays in L1): stack distances of equal-
// sized blocks share their low zero bits and fit in about 32 bits, so two
// or three passes sort them, where std::sort needs ~log2(n). Stable.

#ifndef SYMBIOSIS_MODEL_RADIX_SORT_H_
#define SYMBIOSIS_MODEL_RADIX_SORT_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace symbiosis {

// Sorts `values` by key(value), ascending; `scratch` is working space
// (kept by callers that sort often, to avoid reallocating).
template <typename T, typename Key>
void RadixSortBy(std::vector<T>& values, std::vector<T>& scratch, Key key) {
  uint64_t any = 0, all = ~uint64_t{0};
  for (const T& v : values) {
    any |= key(v);
    all &= key(v);
  }
  const uint64_t varying = any & ~all;
  if (varying == 0) return;
  const int low = std::countr_zero(varying);
  const int bits = 64 - std::countl_zero(varying) - low;
  const int passes = (bits + 10) / 11;
  const int width = (bits + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  scratch.resize(values.size());
  std::vector<size_t> next(size_t{1} << width);
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = low + pass * width;
    std::fill(next.begin(), next.end(), 0);
    for (const T& v : values) ++next[(key(v) >> shift) & mask];
    size_t start = 0;
    for (size_t& count : next) start += std::exchange(count, start);
    for (const T& v : values) scratch[next[(key(v) >> shift) & mask]++] = v;
    values.swap(scratch);
  }
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_MODEL_RADIX_SORT_H_
