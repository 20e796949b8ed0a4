#include "model/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

Sampler::Sampler(const SamplerOptions& options) : options_(options) {
  if (!(options.rate > 0 && options.rate <= 1)) {
    throw InputError("sampling rate " + std::to_string(options.rate) +
                     " is outside (0, 1]; use e.g. 0.015625 for 1/64");
  }
  if (options.group_blocks == 0) {
    throw InputError("sampling group size G is 0; use G >= 1 (default 32)");
  }
  if (options.block_disk_bytes == 0) {
    throw InputError("nominal block size is 0 bytes; give the on-disk block size");
  }
  group_bytes_ = uint64_t{options.group_blocks} * options.block_disk_bytes;
  all_ = options.rate >= 1;
  // 2^64 * rate, computed in long double to keep 64 bits of precision.
  threshold_ = all_ ? UINT64_MAX
                    : static_cast<uint64_t>(std::ldexp(
                          static_cast<long double>(options.rate), 64));
  scale_ = 1.0 / options.rate;
}

bool Sampler::SampledGroup(uint64_t file_id, uint64_t group) const {
  return all_ || Hash64(file_id, group) < threshold_;
}

uint64_t Sampler::SampledBytes(uint64_t file_id, uint64_t file_bytes) const {
  if (all_) return file_bytes;
  uint64_t sampled = 0;
  for (uint64_t start = 0, group = 0; start < file_bytes; start += group_bytes_, group++) {
    if (SampledGroup(file_id, group)) sampled += std::min(group_bytes_, file_bytes - start);
  }
  return sampled;
}

}  // namespace symbiosis
