// PageCacheModel: the Linux page cache at 4 KiB page granularity.
//
// What it models (mm/swap.c, mm/vmscan.c, mm/workingset.c, mm/readahead.c,
// mm/filemap.c of Linux 6.18, classic two-list LRU):
//  - Two lists. A new page enters the inactive list. Two-touch promotion:
//    touching an inactive page that is already marked referenced moves it
//    to the active list; otherwise it only marks it (mark_page_accessed).
//    A read does not re-mark its first page when the previous read of the
//    file ended in that page (filemap_read).
//  - Balance: the active list may hold at most inactive_ratio times the
//    inactive list, inactive_ratio = int_sqrt(10 * GiB on both lists), at
//    least 1; reclaim demotes the oldest active pages to restore it, and
//    also whenever pages refaulted into the active list since the last
//    reclaim round.
//  - Eviction from the tail of the inactive list. An evicted page leaves a
//    shadow entry (the eviction clock at its eviction); a refault whose
//    refault distance fits in the active list goes straight to active.
//  - On-demand read-ahead per file (page_cache_sync_ra/async_ra): a sync
//    read-ahead on a miss, an initial window sized from the request, ramp-up
//    (x4 while small, then x2) up to a maximum window (default 32 pages =
//    128 KiB), and an async marker page that triggers the next window;
//    random reads read only the requested pages.
// Switches: two_queue=false gives one LRU list; readahead=false reads only
// the requested pages. Both off is a plain page LRU.
//
// Deliberate simplifications (see page_cache_model.cc): one LRU per cache
// (no NUMA nodes, no MGLRU, no per-CPU batching), order-0 folios only (no
// large folios), no anonymous memory, dirty pages or mapped pages, reclaim
// in rounds of 32 evictions, one read-ahead state per file (one open file
// description per file), and no I/O timing (a page is resident or not).
//
// Limits: page offsets below 2^40 pages (4 PiB), at most 2^22 distinct
// files (a file counts from its first access until DropFile) and
// read-ahead windows below 2^24 pages; beyond that the calls (or the
// constructor) throw InputError.
//
// Memory, once full, per page of capacity: a 16-byte slot, a 16-byte
// shadow entry and two 16-byte index buckets at up to 1/2 load: 96 bytes
// (48 without shadows), plus 40 bytes per file. A sampled model (`sample`
// set) packs its index to 3/4 load, 75 bytes (37), and runs 20-40% slower.
// It grows with the pages held, so a large capacity costs nothing up
// front.
//
// Not thread-safe.

#ifndef SYMBIOSIS_PAGE_CACHE_MODEL_H_
#define SYMBIOSIS_PAGE_CACHE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "symbiosis/kernel_cache.h"
#include "model/sampler.h"

namespace symbiosis {

struct PageCacheOptions {
  uint64_t capacity_bytes = 0;  // rounded down to whole pages
  bool two_queue = true;
  bool refault_activation = true;  // only with two_queue
  bool readahead = true;
  uint32_t max_readahead_pages = 32;  // 128 KiB, the Linux default; < 2^24
  // A sampled (scaled-down) cache stands for one this many times larger:
  // the balance rule, which depends on the size in GiB, uses the full size.
  double balance_scale = 1.0;  // >= 1; 1/R for a ghost sampled at rate R
  // A sampled ghost sees only the reads of sampled groups; read-ahead into
  // groups outside the sample would fill its scaled-down capacity with
  // pages that stand for nothing, so it reads ahead only pages that overlap
  // a sampled group. Its memory is charged against the cache it stands
  // for, so it also trades speed for a denser index (see Memory above).
  // Null: no sampling. Not owned; must outlive the model.
  const Sampler* sample = nullptr;
};

struct PageAccessResult {
  uint32_t hit_pages = 0;     // requested pages already resident
  uint32_t missed_pages = 0;  // requested pages that were not
  uint32_t readahead_pages = 0;  // extra pages brought in by read-ahead
};

class PageCacheModel final : public KernelCache {
 public:
  explicit PageCacheModel(const PageCacheOptions& options);
  ~PageCacheModel() override;

  // Accesses pages [first_page, first_page + count) of a file, as one
  // read() of that range would. REQUIRES: count > 0.
  PageAccessResult AccessPages(uint64_t file_id, uint64_t first_page,
                               uint32_t count);

  // Whether a page is resident now (does not count as an access).
  bool Contains(uint64_t file_id, uint64_t page) const;

  // A hint that a read starting at `first_page` of the file comes soon:
  // starts loading the index buckets that read looks up first. Changes no
  // state; a trace replay calls it a few reads ahead.
  void Prefetch(uint64_t file_id, uint64_t first_page) const;

  // KernelCache.
  bool Read(const Block& block) override;
  void Prefetch(const Block& block) const override;
  void Insert(const Block& block) override;
  void Drop(const Block& block) override;
  void DropFile(uint64_t file_id) override;
  void SetFileSize(uint64_t file_id, uint64_t bytes) override;
  void SetCapacity(uint64_t bytes) override;
  uint64_t capacity() const override;
  uint64_t used_bytes() const override;

  // For tests and reports.
  uint64_t active_pages() const;
  uint64_t inactive_pages() const;
  const PageCacheOptions& options() const;
  // Evicted pages remembered for refaults: those of the last
  // capacity-in-pages evictions, less those read or dropped since.
  uint64_t shadow_entries() const;
  size_t MemoryUsage() const override;  // heap bytes held by the model

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_PAGE_CACHE_MODEL_H_
