#include "symbiosis/layout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

namespace {

// Blocks are stored one Block (24 bytes) each; this caps the table at
// 1.5 GiB, i.e. 256 GiB of data in 4 KiB blocks.
constexpr uint64_t kMaxBlocks = uint64_t{1} << 26;

[[noreturn]] void ThrowBadLayout(const std::string& reason) {
  throw InputError("data layout: " + reason);
}

uint64_t RoundUpToPage(uint64_t bytes) {
  return (bytes + kPageSize - 1) & ~(kPageSize - 1);
}

// Uniform in [-1, 1), a pure function of (seed, ordinal) so that a block's
// size does not depend on how many blocks were drawn before it.
double Jitter(uint64_t seed, uint64_t ordinal) {
  return static_cast<double>(Hash64(seed, ordinal) >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

// Invariants, once the constructor returns:
//  - blocks_[i] holds keys [i * entries_per_block_, (i+1) * entries_per_block_)
//    and num_keys_ == blocks_.size() * entries_per_block_;
//  - every block has mem_size == block_bytes and
//    1 + trailer_bytes <= disk_size <= block_bytes + trailer_bytes;
//  - blocks are in key order; within a file they do not overlap and follow
//    each other with no gap (aligned: each starts on a page boundary);
//    no file grows past file_bytes;
//  - disk_bytes_ is the sum of the files' lengths (padding included).
DataLayout::DataLayout(const LayoutOptions& options) : options_(options) {
  const LayoutOptions& o = options_;
  if (!(o.alpha > 0 && o.alpha <= 1)) {  // NaN fails too
    ThrowBadLayout("alpha " + std::to_string(o.alpha) +
                   " is outside (0, 1]; alpha is compressed/uncompressed size");
  }
  if (!(o.size_jitter >= 0 && o.size_jitter < 1)) {
    ThrowBadLayout("size_jitter " + std::to_string(o.size_jitter) +
                   " is outside [0, 1)");
  }
  if (o.block_bytes == 0) ThrowBadLayout("block size is 0; use e.g. 4096");
  if (o.block_bytes > kMaxBlockBytes) {
    ThrowBadLayout("block size " + std::to_string(o.block_bytes) +
                   " is larger than 64 MiB, the largest block a study simulates");
  }
  if (o.entry_bytes == 0 || o.entry_bytes > o.block_bytes) {
    ThrowBadLayout("entry size " + std::to_string(o.entry_bytes) +
                   " must be between 1 and the block size " +
                   std::to_string(o.block_bytes));
  }
  if (o.data_bytes < o.block_bytes) {
    ThrowBadLayout("data size " + std::to_string(o.data_bytes) +
                   " bytes is smaller than one block (" +
                   std::to_string(o.block_bytes) + " bytes)");
  }
  const uint64_t num_blocks = o.data_bytes / o.block_bytes;
  if (num_blocks > kMaxBlocks) {
    ThrowBadLayout(std::to_string(num_blocks) + " blocks exceed the " +
                   std::to_string(kMaxBlocks) +
                   " the simulator holds; use less data or larger blocks");
  }
  // The jitter is capped so that no block compresses to more than its
  // uncompressed size; then the mean compressed size is alpha * block_bytes.
  const double mean_payload = o.alpha * o.block_bytes;
  const double jitter = std::min(o.size_jitter, (1 - o.alpha) / o.alpha);
  const uint64_t max_disk_size =
      static_cast<uint64_t>(std::ceil(mean_payload * (1 + jitter))) +
      o.trailer_bytes;
  const uint64_t max_block_extent =
      o.aligned ? RoundUpToPage(max_disk_size) : max_disk_size;
  if (max_disk_size > UINT32_MAX || o.file_bytes < max_block_extent) {
    ThrowBadLayout("file size " + std::to_string(o.file_bytes) +
                   " bytes cannot hold one block of up to " +
                   std::to_string(max_block_extent) +
                   " bytes on disk; use a larger file size");
  }

  entries_per_block_ = o.block_bytes / o.entry_bytes;
  num_keys_ = num_blocks * entries_per_block_;
  memory_bytes_ = num_blocks * o.block_bytes;
  blocks_.reserve(num_blocks);
  uint64_t file_id = 1;  // like table file numbers, never 0
  uint64_t file_length = 0;
  for (uint64_t i = 0; i < num_blocks; i++) {
    double payload = mean_payload * (1 + jitter * Jitter(o.seed, i));
    uint32_t disk_size = static_cast<uint32_t>(
        std::clamp(std::llround(payload), 1LL,
                   static_cast<long long>(o.block_bytes)) +
        o.trailer_bytes);
    uint64_t extent = o.aligned ? RoundUpToPage(disk_size) : disk_size;
    if (file_length + extent > o.file_bytes) {
      disk_bytes_ += file_length;
      file_id++;
      file_length = 0;
    }
    blocks_.push_back(Block{file_id, file_length, disk_size, o.block_bytes});
    file_length += extent;
    stored_bytes_ += disk_size;
  }
  disk_bytes_ += file_length;
}

uint32_t DataLayout::mean_disk_block_bytes() const {
  return static_cast<uint32_t>((stored_bytes_ + num_blocks() / 2) /
                               num_blocks());
}

}  // namespace symbiosis
