// KernelCache: a model of the second cache level, the one that holds the
// compressed (on-disk) bytes of blocks. Every kernel model implements this
// small interface, so adding one touches one file plus the factory.
//
// Implementations:
//   PageCacheModel (page_cache_model.h): the Linux page cache at page
//     granularity; with 2Q and read-ahead switched off it is a page LRU.
//   NewBlockLru (below): an LRU of whole blocks charged by disk size; it
//     ignores pages, so it cannot see misalignment.

#ifndef SYMBIOSIS_KERNEL_CACHE_H_
#define SYMBIOSIS_KERNEL_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "symbiosis/block.h"

namespace symbiosis {

struct PageCacheOptions;  // page_cache_model.h

class KernelCache {
 public:
  virtual ~KernelCache() = default;

  // Reads the block's on-disk bytes through the cache. Returns true (a
  // kernel hit) iff every byte was resident before the call; what was
  // missing is brought in, plus whatever the model reads ahead.
  virtual bool Read(const Block& block) = 0;

  // A hint that `block` will be read soon: a trace replay that knows its
  // future reads calls this a few reads ahead, so that the model's memory
  // for the block is on its way to the CPU cache by then. Changes nothing
  // the model does; the default does nothing.
  virtual void Prefetch(const Block& block) const {}

  // Makes the block resident without counting an access (an exclusive
  // hierarchy demotes blocks evicted from the application cache this way).
  virtual void Insert(const Block& block) = 0;

  // Removes the block's bytes (e.g. exclusive caching on admission to the
  // application cache). Pages shared with a neighbouring block go too.
  virtual void Drop(const Block& block) = 0;

  // Forgets everything cached for `file_id` (the file was deleted).
  virtual void DropFile(uint64_t file_id) = 0;

  // Optional: the file's size, so that read-ahead stops at its last page
  // as Linux's does. A model that reads ahead needs it: without it a large
  // window fills the cache with pages past the end of small files. The
  // default does nothing (a model without read-ahead reads only what it
  // is asked).
  virtual void SetFileSize(uint64_t file_id, uint64_t bytes) {}

  // Resizes; shrinking evicts at once. Capacities are in bytes.
  virtual void SetCapacity(uint64_t bytes) = 0;
  virtual uint64_t capacity() const = 0;
  virtual uint64_t used_bytes() const = 0;
  // Heap bytes the model itself holds (its index and lists, not the data
  // it stands for), for the online ghosts' memory budget.
  virtual size_t MemoryUsage() const = 0;
};

// An LRU of whole blocks, each charged its disk size.
std::unique_ptr<KernelCache> NewBlockLru(uint64_t capacity_bytes);

// The kernel models the simulator offers by name.
enum class KernelModelKind {
  kLinux,     // PageCacheModel: 2Q, refault activation, read-ahead
  kPageLru,   // PageCacheModel with 2Q and read-ahead off
  kBlockLru,  // NewBlockLru
};

// "linux", "lru", "block-lru". Throws InputError on an unknown name.
KernelModelKind ParseKernelModelKind(std::string_view name);
std::string KernelModelName(KernelModelKind kind);

// The one factory of kernel models. kLinux is a PageCacheModel with
// `options` as given; kPageLru the same with 2Q, refault activation and
// read-ahead off; kBlockLru a block LRU of options.capacity_bytes.
std::unique_ptr<KernelCache> NewKernelCache(KernelModelKind kind,
                                            const PageCacheOptions& options);

}  // namespace symbiosis

#endif  // SYMBIOSIS_KERNEL_CACHE_H_
