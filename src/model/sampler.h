// Sampler: misalignment-aware spatial sampling of blocks.
//
// Spatial sampling (SHARDS) keeps a fixed fraction R of keys, chosen by a
// hash, and scales what it sees by 1/R: the sampled keys behave like a
// small copy of the whole workload. Hashing single blocks breaks the page
// cache's locality, though: two neighbouring blocks share a page when they
// are misaligned, and a read of one brings in part of the other. So blocks
// are grouped into runs of G consecutive blocks of a file and whole groups
// are kept or dropped, preserving neighbourhoods except at group edges
// (paper §4.2.3, Figure 7). A group is the byte range of G blocks of the
// nominal on-disk block size: group = offset / (G * block_disk_bytes),
// which needs no block index and is exact for fixed-size layouts.

#ifndef SYMBIOSIS_SAMPLER_H_
#define SYMBIOSIS_SAMPLER_H_

#include <cstdint>

#include "symbiosis/block.h"

namespace symbiosis {

struct SamplerOptions {
  double rate = 1.0 / 64;          // R, in (0, 1]
  uint32_t group_blocks = 32;      // G >= 1
  uint32_t block_disk_bytes = 4096;  // nominal on-disk block size, > 0
};

class Sampler {
 public:
  // Throws InputError for a rate outside (0, 1] or a zero G or size.
  explicit Sampler(const SamplerOptions& options);

  uint64_t GroupOf(const Block& block) const {
    return block.offset / group_bytes_;
  }
  // Whether the block's group is in the sample: one hash and one compare.
  bool Sampled(const Block& block) const {
    return SampledGroup(block.file_id, GroupOf(block));
  }
  bool SampledGroup(uint64_t file_id, uint64_t group) const;
  // How many of a file's first `file_bytes` bytes lie in sampled groups:
  // a sample of a few hundred groups holds R * (1 +- 5-10%) of the data,
  // not R, and ghosts scaled by R then stand for the wrong cache size.
  uint64_t SampledBytes(uint64_t file_id, uint64_t file_bytes) const;

  // Each sampled access stands for 1/R accesses; charge sizes by it.
  double scale() const { return scale_; }
  double rate() const { return options_.rate; }
  uint64_t group_bytes() const { return group_bytes_; }

 private:
  SamplerOptions options_;
  uint64_t group_bytes_;
  uint64_t threshold_;  // a group is sampled iff hash < threshold_
  double scale_;
  bool all_;            // R == 1: everything sampled
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_SAMPLER_H_
