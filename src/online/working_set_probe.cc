#include "online/working_set_probe.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "base/hash.h"

namespace symbiosis {

void WorkingSetProbe::Add(const Block& block) {
  const uint64_t bit = Hash64(block.file_id, block.offset) >> (64 - kBitsLog2);
  std::atomic<uint64_t>& word = bits_[bit / 64];
  const uint64_t mask = uint64_t{1} << (bit % 64);
  if ((word.load(std::memory_order_relaxed) & mask) == 0) {
    word.fetch_or(mask, std::memory_order_relaxed);
  }
}

double WorkingSetProbe::Distinct() const {
  uint64_t set = 0;
  for (const std::atomic<uint64_t>& word : bits_) {
    set += std::popcount(word.load(std::memory_order_relaxed));
  }
  const double m = static_cast<double>(size_t{1} << kBitsLog2);
  // Every bit set: beyond what the probe can count; the most it can tell.
  const double clear = std::max<double>(m - static_cast<double>(set), 1);
  return -m * std::log(clear / m);
}

void WorkingSetProbe::Clear() {
  for (std::atomic<uint64_t>& word : bits_) word.store(0, std::memory_order_relaxed);
}

}  // namespace symbiosis
