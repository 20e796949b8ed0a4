#include "symbiosis/mrc.h"

#include <algorithm>

namespace symbiosis {

std::vector<uint64_t> EvenSizes(uint64_t working_set, size_t count) {
  std::vector<uint64_t> sizes;
  const uint64_t top = std::max<uint64_t>(working_set, 1);
  for (size_t i = 1; i <= count; i++) {
    const unsigned __int128 scaled = static_cast<unsigned __int128>(top) * i;
    const uint64_t size = static_cast<uint64_t>((scaled + count - 1) / count);
    if (sizes.empty() || size > sizes.back()) sizes.push_back(size);
  }
  return sizes;
}

}  // namespace symbiosis
