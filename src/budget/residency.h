// ResidencyProbe: which pages of an open file are in the page cache, found
// out exactly and without changing the cache.
//
// Three mechanisms, best first:
//   cachestat(2)  Linux >= 6.5. Counts the cached pages of a byte range
//                 from the page cache's index; touches no page.
//   mincore(2)    on a fresh read-only mapping of the range. Also touches
//                 no page; costs an mmap per query.
//   preadv2(2) with RWF_NOWAIT: copies only what is cached and stops at
//                 the first missing page. Not side-effect free: a cached
//                 page counts as accessed (LRU promotion), and on a miss
//                 the kernel still starts read-ahead before returning
//                 EAGAIN. Last resort.
// The probe picks the best one that works on the file, once.
//
// Thread-safe: queries keep no state, so readers may share one probe.

#ifndef SYMBIOSIS_RESIDENCY_H_
#define SYMBIOSIS_RESIDENCY_H_

#include <cstdint>
#include <optional>
#include <string>

namespace symbiosis {

enum class ResidencyMethod { kCachestat, kMincore, kPreadNowait };

// "cachestat", "mincore", "preadv2-nowait".
std::string ResidencyMethodName(ResidencyMethod method);

// The kernel's maximum read-ahead window for files on the block device
// under `path` (a file or directory), in pages: read_ahead_kb of the
// device, or of the whole disk for a partition. nullopt when it cannot be
// read (e.g. tmpfs, or no /sys).
std::optional<uint32_t> DeviceReadaheadPages(const std::string& path);

class ResidencyProbe {
 public:
  // Uses the best method that works on `fd`. Throws InputError if none
  // does (e.g. fd is not a readable regular file).
  // REQUIRES: fd stays open while the probe is used.
  explicit ResidencyProbe(int fd);

  // Uses `method`; throws InputError if it does not work on `fd`.
  ResidencyProbe(int fd, ResidencyMethod method);

  // Whether `method` works on `fd` on this kernel.
  static bool Works(int fd, ResidencyMethod method);

  // Of the pages overlapping bytes [offset, offset + length), how many are
  // resident. REQUIRES: the range lies inside the file; length > 0.
  uint64_t ResidentPages(uint64_t offset, uint64_t length) const;

  // Whether every page overlapping the range is resident.
  bool IsResident(uint64_t offset, uint64_t length) const;

  ResidencyMethod method() const { return method_; }

 private:
  uint64_t CountWithCachestat(uint64_t first_page, uint64_t pages) const;
  uint64_t CountWithMincore(uint64_t first_page, uint64_t pages) const;
  uint64_t CountWithPread(uint64_t first_page, uint64_t pages) const;

  const int fd_;
  ResidencyMethod method_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_RESIDENCY_H_
