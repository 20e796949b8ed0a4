// DataLayout: a synthetic on-disk layout of a key-value data set, from
// which block sizes and offsets follow, so misalignment is real.
//
// D_u bytes of uncompressed data are cut into blocks of block_bytes
// (LevelDB's 4 KiB). Each block compresses to about alpha * block_bytes
// (a seeded jitter makes sizes vary as real compressed blocks do) plus a
// 5-byte block trailer, as in LevelDB tables; blocks are packed back to back
// into files of about file_bytes on disk, so most blocks start in the
// middle of a page. `aligned` pads every block to whole pages instead, the
// setting in which the paper's closed forms apply.
//
// Sizes: D_u is rounded down to whole blocks (memory_bytes()); every block
// holds block_bytes uncompressed. A block's payload is alpha * block_bytes
// times (1 + j*u), u uniform in [-1, 1) drawn from Hash64(seed, ordinal),
// j = min(size_jitter, (1 - alpha) / alpha) so that no block grows past
// block_bytes and the mean stays alpha * block_bytes; its disk size adds
// the trailer. Files are numbered from 1 and never exceed file_bytes.
//
// Keys: the data set holds num_keys() keys of entry_bytes each, in key
// order, entries_per_block() per block; key k lives in block
// k / entries_per_block(). Generators draw keys; the layout turns them into
// blocks.

#ifndef SYMBIOSIS_LAYOUT_H_
#define SYMBIOSIS_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "symbiosis/block.h"

namespace symbiosis {

struct LayoutOptions {
  uint64_t data_bytes = uint64_t{1} << 30;  // D_u, uncompressed
  double alpha = 0.5;                       // compression ratio, (0, 1]
  uint32_t block_bytes = 4096;              // uncompressed block size
  uint32_t entry_bytes = 128;               // key + value + overhead
  uint64_t file_bytes = 2 << 20;            // on-disk file size target
  double size_jitter = 0.1;                 // disk size varies +-10%
  uint32_t trailer_bytes = 5;               // LevelDB block trailer
  bool aligned = false;                     // pad blocks to whole pages
  uint64_t seed = 1;
};

class DataLayout {
 public:
  // Throws InputError on bad options: alpha outside (0, 1] or NaN,
  // size_jitter outside [0, 1), block_bytes 0, entry_bytes 0 or above
  // block_bytes, data smaller than one block, more than 2^26 blocks,
  // file_bytes smaller than the largest block on disk (page-padded when
  // aligned). Deterministic given options.seed.
  explicit DataLayout(const LayoutOptions& options);

  uint64_t num_blocks() const { return blocks_.size(); }
  uint64_t num_keys() const { return num_keys_; }
  uint32_t entries_per_block() const { return entries_per_block_; }
  // REQUIRES: ordinal < num_blocks()
  const Block& block(uint64_t ordinal) const { return blocks_[ordinal]; }
  // REQUIRES: key < num_keys()
  uint64_t BlockOfKey(uint64_t key) const { return key / entries_per_block_; }
  uint64_t disk_bytes() const { return disk_bytes_; }  // D_c, incl. padding
  uint64_t memory_bytes() const { return memory_bytes_; }  // D_u, whole blocks
  const LayoutOptions& options() const { return options_; }
  // Sum of the blocks' disk sizes, without padding.
  uint64_t stored_bytes() const { return stored_bytes_; }
  // Mean on-disk block size, the sampler's nominal block size.
  uint32_t mean_disk_block_bytes() const;

 private:
  LayoutOptions options_;
  std::vector<Block> blocks_;
  uint64_t num_keys_ = 0;
  uint32_t entries_per_block_ = 0;
  uint64_t disk_bytes_ = 0;
  uint64_t stored_bytes_ = 0;
  uint64_t memory_bytes_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_LAYOUT_H_
