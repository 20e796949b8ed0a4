// ReleaseFreeHeap: gives the allocator's free heap pages back to the
// system, so that a memory cgroup's page cache can have them after an
// application cache shrinks.
//
// glibc keeps freed memory mapped until malloc_trim. jemalloc (preloaded,
// e.g. `symbiosis bench --allocator jemalloc`) keeps it as dirty pages for
// its decay time (10 s by default), and malloc_trim, which is glibc's, does
// not reach it. In LevelDB's hotspot30 cell at M/D_u 0.4 under jemalloc,
// the memory of the blocks that the first 8 MiB and the trials had cached
// stayed resident: 10.5 MiB of anonymous memory against static-0's 2.3,
// the page cache 3 MiB smaller, and Symbiosis at 0 MiB 0.73x as fast as
// static-0 (docs/decisions/allocators.md).

#ifndef SYMBIOSIS_BUDGET_HEAP_RELEASE_H_
#define SYMBIOSIS_BUDGET_HEAP_RELEASE_H_

namespace symbiosis {

// The allocators that were asked to release their free pages.
struct HeapRelease {
  bool glibc = false;
  bool jemalloc = false;  // the process has jemalloc's mallctl and it purged
};

// malloc_trim(0), then, where the process has jemalloc, a purge of every
// arena's unused dirty pages. Thread-safe; about 1 ms (15 ms the first time
// in the LevelDB runs).
HeapRelease ReleaseFreeHeap();

}  // namespace symbiosis

#endif  // SYMBIOSIS_BUDGET_HEAP_RELEASE_H_
