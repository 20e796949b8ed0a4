// A MemoryAllocator for RocksDB's compressed secondary cache that keeps
// the cache's buffers out of the process heap, in slabs of its own that go
// back to the kernel when they empty.
//
// Why: with glibc, the compressed cache's buffers (a few KiB each) and the
// block cache's blocks share one heap. When the Controller grows the block
// cache, the compressed cache shrinks, and its freed buffers leave holes
// between live blocks that glibc can neither return nor reuse well; the
// grown cache then ran up to 9% slower than a block cache of the same
// size that never had a compressed cache beside it (hotspot10 at M/D_u
// 0.2: 0.908 of static M with glibc, 0.948 with jemalloc). Here
// each size class fills slabs of its own, and an emptied slab's pages are
// returned (MADV_DONTNEED), so a shrink gives memory back whichever
// buffers it frees. With it the same cell reads 0.956 under glibc, and a
// busy 56 MiB compressed cache runs 3-5% faster than with malloc
// (docs/decisions/allocators.md).
//
// Requests round up to a multiple of 64 bytes; those above kMaxSlabObject,
// and any that find the reserved address space full, go to malloc.
// Thread-safe. Under AddressSanitizer, freed objects are poisoned.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_SLAB_ALLOCATOR_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_SLAB_ALLOCATOR_H_

#include <rocksdb/memory_allocator.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace symbiosis::rocksdb {

class SlabAllocator final : public ::rocksdb::MemoryAllocator {
 public:
  static constexpr size_t kSlabBytes = 128 << 10;
  static constexpr size_t kGrain = 64;
  static constexpr size_t kMaxSlabObject = 16 << 10;
  // Empty slabs kept with their pages (2 MiB), so that a cache that frees
  // and allocates around a steady size does not fault pages in and out.
  static constexpr size_t kKeptEmptySlabs = 16;

  // Reserves `reserve_bytes` of address space (no memory until used). If
  // the reservation fails, every request goes to malloc.
  explicit SlabAllocator(size_t reserve_bytes);
  // REQUIRES: everything allocated here has been deallocated.
  ~SlabAllocator() override;
  SlabAllocator(const SlabAllocator&) = delete;
  SlabAllocator& operator=(const SlabAllocator&) = delete;

  const char* Name() const override { return "SymbiosisSlabAllocator"; }
  void* Allocate(size_t size) override;
  void Deallocate(void* p) override;
  size_t UsableSize(void* p, size_t allocation_size) const override;

  // Bytes of the slabs that hold memory now: those in use, and at most
  // kKeptEmptySlabs empty ones kept for reuse.
  uint64_t ResidentBytes() const { return resident_slabs_.load(std::memory_order_relaxed) * kSlabBytes; }
  // Bytes handed out from slabs and not yet freed, rounded as allocated.
  uint64_t AllocatedBytes() const { return allocated_bytes_.load(std::memory_order_relaxed); }
  // Requests that went to malloc: too large, or the reservation was full.
  uint64_t MallocFallbacks() const { return malloc_fallbacks_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kClasses = kMaxSlabObject / kGrain;  // class c: (c*64, (c+1)*64]
  static constexpr size_t ObjectBytes(uint32_t size_class) { return (size_class + 1) * kGrain; }

  // At the start of each slab; objects follow it.
  struct SlabHeader {
    std::atomic<uint32_t> size_class;  // read by Deallocate before it locks
    uint32_t live;                     // objects handed out
    uint32_t carved;                   // bytes cut from the slab so far
    bool has_room;                     // on its class's list of slabs with room
    void* free_list;                   // freed objects, linked through their first word
    SlabHeader* prev;                  // that list
    SlabHeader* next;
  };
  static_assert(sizeof(SlabHeader) <= kGrain, "the first object starts at kGrain");

  struct alignas(64) SizeClass {
    std::mutex mu;
    SlabHeader* with_room = nullptr;  // guarded by mu
  };

  bool Owns(const void* p) const { return p >= base_ && p < base_ + reserved_; }
  SlabHeader* HeaderOf(const void* p) const;
  // An object of the class from its slabs; nullptr if no slab is left.
  void* AllocateInClass(uint32_t size_class);
  // Under the class's lock.
  void* Carve(SlabHeader* slab, size_t object_bytes);
  void Unlink(SizeClass& c, SlabHeader* slab);
  void Link(SizeClass& c, SlabHeader* slab);
  // The slab pool, under pool_mu_. nullptr when the reservation is full.
  SlabHeader* TakeSlab(uint32_t size_class);
  void ReturnSlab(SlabHeader* slab);

  char* base_ = nullptr;  // kSlabBytes-aligned; nullptr: malloc only
  size_t reserved_ = 0;   // bytes from base_
  SizeClass classes_[kClasses];

  std::mutex pool_mu_;
  size_t committed_ = 0;                    // bytes from base_ made writable
  std::vector<SlabHeader*> empty_resident_;  // empty slabs with their pages
  std::vector<SlabHeader*> empty_released_;  // empty slabs given back
  void* mapping_ = nullptr;  // the whole reservation, for munmap
  size_t mapping_bytes_ = 0;

  std::atomic<uint64_t> resident_slabs_{0};
  std::atomic<uint64_t> allocated_bytes_{0};
  std::atomic<uint64_t> malloc_fallbacks_{0};
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_SLAB_ALLOCATOR_H_
