// Block addressing shared by every model.
//
// An engine stores data as blocks inside files. A block has two sizes: its
// compressed size on disk (what the kernel page cache holds) and its
// uncompressed size in memory (what the application cache holds). The kernel
// caches whole 4 KiB pages, so a block touches every page its on-disk byte
// range overlaps; a block that does not start on a page boundary, or that
// crosses one, touches two or more pages ("misalignment").

#ifndef SYMBIOSIS_BLOCK_H_
#define SYMBIOSIS_BLOCK_H_

#include <cstdint>

namespace symbiosis {

inline constexpr uint64_t kPageShift = 12;
inline constexpr uint64_t kPageSize = uint64_t{1} << kPageShift;
// The largest block the studies simulate: every access reads its block
// page by page, so a block size (or a trace's object size) beyond any
// engine's blocks would turn a small input into hours of work
// (docs/decisions/input-limits.md).
inline constexpr uint32_t kMaxBlockBytes = 64u << 20;

struct Block {
  uint64_t file_id = 0;    // stable across reopen (e.g. the table file number)
  uint64_t offset = 0;     // byte offset of the block in its file
  uint32_t disk_size = 0;  // bytes on disk (compressed); REQUIRES: > 0
  uint32_t mem_size = 0;   // bytes in the application cache (uncompressed)

  // First and last 4 KiB page the on-disk bytes touch, and how many pages.
  uint64_t first_page() const { return offset >> kPageShift; }
  uint64_t last_page() const { return (offset + disk_size - 1) >> kPageShift; }
  uint32_t page_count() const {
    return static_cast<uint32_t>(last_page() - first_page() + 1);
  }
  // A key unique to (file, offset), for ghost caches keyed by block.
  uint64_t key() const;

  friend bool operator==(const Block&, const Block&) = default;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_BLOCK_H_
