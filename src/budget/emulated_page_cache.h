// EmulatedPageCache: a page cache in user space, for running an engine under
// a memory budget without root (the "emulated" budget).
//
// The engine's table reads bypass the kernel page cache (the files are
// opened with O_DIRECT) and come here instead. Which pages are resident is
// decided by a PageCacheModel of capacity M - M_a (by default the
// Linux-like model: two lists, refault activation, read-ahead), and the
// bytes of resident pages are kept in memory this cache owns, so the budget
// is spent on real memory as it is under a cgroup. A read the model calls a
// miss costs a real device read plus an injected latency (e.g. 70 us to
// emulate flash, 5 ms a disk); a hit is a copy. Runs are deterministic in
// the model's decisions for a given sequence of reads.
//
// Pages the model reads ahead are fetched lazily: the first read that needs
// one which the model holds but this cache has no bytes for reads it from
// the device without the injected latency, since a real read-ahead would
// have brought it in the background.
//
// Thread-safe. The device read and the injected latency happen without the
// lock held, so concurrent misses overlap as they do on a real device.

#ifndef SYMBIOSIS_EMULATED_PAGE_CACHE_H_
#define SYMBIOSIS_EMULATED_PAGE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "symbiosis/sched_times.h"

namespace symbiosis {

struct EmulatedPageCacheOptions {
  uint64_t capacity_bytes = 0;      // M_k now
  uint64_t max_capacity_bytes = 0;  // the most it will ever be (M); >= capacity
  uint64_t device_latency_ns = 0;   // added to every read that misses
  bool linux_model = true;          // false: a plain page LRU, no read-ahead
  uint32_t max_readahead_pages = 32;
};

struct EmulatedRead {
  int error = 0;         // 0, or the errno of the failed device read
  bool hit = false;      // every requested page was resident
  size_t bytes = 0;      // bytes copied to `out` (short at the end of file)
  // On one miss in 8 (per thread), the thread's scheduler times as it went
  // to the device (before the injected latency), for the Controller's
  // cost split.
  std::optional<SchedTimes> miss_start;
};

class EmulatedPageCache {
 public:
  // Throws InputError when max_capacity_bytes < capacity_bytes or the
  // read-ahead window is invalid.
  explicit EmulatedPageCache(const EmulatedPageCacheOptions& options);
  ~EmulatedPageCache();
  EmulatedPageCache(const EmulatedPageCache&) = delete;
  EmulatedPageCache& operator=(const EmulatedPageCache&) = delete;

  // Reads bytes [offset, offset + length) of file `file_id`, `file_bytes`
  // long, through the cache into `out`. `fd` reads the file from the
  // device (opened with O_DIRECT where the file system allows it).
  // REQUIRES: length > 0; `file_id` names one file for the cache's life
  // (until DropFile).
  EmulatedRead Read(uint64_t file_id, int fd, uint64_t file_bytes,
                    uint64_t offset, size_t length, char* out);

  // Resizes (clamped to max_capacity_bytes); shrinking evicts at once and
  // returns the freed memory to the system.
  void SetCapacity(uint64_t bytes);
  // The file was deleted: forget its pages.
  void DropFile(uint64_t file_id);

  uint64_t capacity() const;
  uint64_t resident_bytes() const;  // pages the model holds
  uint64_t data_bytes() const;      // page bytes held in memory now

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_EMULATED_PAGE_CACHE_H_
