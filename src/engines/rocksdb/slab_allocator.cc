#include "engines/rocksdb/slab_allocator.h"

#include <sanitizer/asan_interface.h>  // no-ops unless built with ASan
#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace symbiosis::rocksdb {

// Invariants, per size class and under its lock: a slab with live objects
// is on `with_room` exactly when has_room (a freed object or uncarved
// space); an emptied slab goes back to the pool at once. A slab changes
// class only from the pool, so the size_class Deallocate reads without
// the lock is the one of the object it frees.
//
// Under AddressSanitizer, every byte of a slab but its header and the
// objects handed out is poisoned, so a use of a freed buffer is reported
// as it would be with malloc; a free-list link is read with its object
// unpoisoned.

SlabAllocator::SlabAllocator(size_t reserve_bytes) {
  const size_t slabs = (reserve_bytes + kSlabBytes - 1) / kSlabBytes;
  if (slabs == 0) return;
  // One slab extra, to align the start to kSlabBytes.
  mapping_bytes_ = (slabs + 1) * kSlabBytes;
  void* mapping = mmap(nullptr, mapping_bytes_, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) {
    mapping_bytes_ = 0;
    return;
  }
  mapping_ = mapping;
  const uintptr_t start = reinterpret_cast<uintptr_t>(mapping);
  base_ = reinterpret_cast<char*>((start + kSlabBytes - 1) / kSlabBytes * kSlabBytes);
  reserved_ = slabs * kSlabBytes;
}

SlabAllocator::~SlabAllocator() {
  // The address range may be mapped again by someone else.
  ASAN_UNPOISON_MEMORY_REGION(base_, committed_);
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
}

SlabAllocator::SlabHeader* SlabAllocator::HeaderOf(const void* p) const {
  const size_t offset = static_cast<const char*>(p) - base_;
  return reinterpret_cast<SlabHeader*>(base_ + offset / kSlabBytes * kSlabBytes);
}

void* SlabAllocator::Allocate(size_t size) {
  const size_t size_class = (size == 0 ? 0 : size - 1) / kGrain;
  if (size_class < kClasses && base_ != nullptr) {
    if (void* p = AllocateInClass(static_cast<uint32_t>(size_class))) return p;
  }
  malloc_fallbacks_.fetch_add(1, std::memory_order_relaxed);
  return malloc(size);
}

void* SlabAllocator::AllocateInClass(uint32_t size_class) {
  const size_t object_bytes = ObjectBytes(size_class);
  SizeClass& c = classes_[size_class];
  std::lock_guard<std::mutex> lock(c.mu);
  SlabHeader* slab = c.with_room;
  if (slab == nullptr) {
    slab = TakeSlab(size_class);
    if (slab == nullptr) return nullptr;
    Link(c, slab);
  }
  void* p = Carve(slab, object_bytes);
  if (slab->free_list == nullptr && slab->carved + object_bytes > kSlabBytes) Unlink(c, slab);
  allocated_bytes_.fetch_add(object_bytes, std::memory_order_relaxed);
  return p;
}

void* SlabAllocator::Carve(SlabHeader* slab, size_t object_bytes) {
  ++slab->live;
  if (slab->free_list != nullptr) {
    void* p = slab->free_list;
    ASAN_UNPOISON_MEMORY_REGION(p, object_bytes);
    slab->free_list = *static_cast<void**>(p);
    return p;
  }
  void* p = reinterpret_cast<char*>(slab) + slab->carved;
  slab->carved += static_cast<uint32_t>(object_bytes);
  ASAN_UNPOISON_MEMORY_REGION(p, object_bytes);
  return p;
}

void SlabAllocator::Deallocate(void* p) {
  if (!Owns(p)) {
    free(p);
    return;
  }
  SlabHeader* slab = HeaderOf(p);
  const uint32_t size_class = slab->size_class.load(std::memory_order_relaxed);
  const size_t object_bytes = ObjectBytes(size_class);
  SizeClass& c = classes_[size_class];
  {
    std::lock_guard<std::mutex> lock(c.mu);
    *static_cast<void**>(p) = slab->free_list;
    slab->free_list = p;
    ASAN_POISON_MEMORY_REGION(p, object_bytes);
    --slab->live;
    allocated_bytes_.fetch_sub(object_bytes, std::memory_order_relaxed);
    if (slab->live > 0) {
      if (!slab->has_room) Link(c, slab);
      return;
    }
    Unlink(c, slab);
  }
  ReturnSlab(slab);
}

size_t SlabAllocator::UsableSize(void* p, size_t allocation_size) const {
  if (!Owns(p)) return allocation_size;
  return ObjectBytes(HeaderOf(p)->size_class.load(std::memory_order_relaxed));
}

void SlabAllocator::Link(SizeClass& c, SlabHeader* slab) {
  slab->prev = nullptr;
  slab->next = c.with_room;
  if (c.with_room != nullptr) c.with_room->prev = slab;
  c.with_room = slab;
  slab->has_room = true;
}

void SlabAllocator::Unlink(SizeClass& c, SlabHeader* slab) {
  if (slab->prev != nullptr) slab->prev->next = slab->next;
  if (slab->next != nullptr) slab->next->prev = slab->prev;
  if (c.with_room == slab) c.with_room = slab->next;
  slab->prev = slab->next = nullptr;
  slab->has_room = false;
}

SlabAllocator::SlabHeader* SlabAllocator::TakeSlab(uint32_t size_class) {
  SlabHeader* slab = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!empty_resident_.empty()) {
      slab = empty_resident_.back();
      empty_resident_.pop_back();
    } else if (!empty_released_.empty()) {
      slab = empty_released_.back();
      empty_released_.pop_back();
      resident_slabs_.fetch_add(1, std::memory_order_relaxed);
    } else if (committed_ < reserved_) {
      if (mprotect(base_ + committed_, kSlabBytes, PROT_READ | PROT_WRITE) != 0) return nullptr;
      slab = reinterpret_cast<SlabHeader*>(base_ + committed_);
      committed_ += kSlabBytes;
      resident_slabs_.fetch_add(1, std::memory_order_relaxed);
    } else {
      return nullptr;
    }
  }
  ASAN_UNPOISON_MEMORY_REGION(slab, kGrain);
  ASAN_POISON_MEMORY_REGION(reinterpret_cast<char*>(slab) + kGrain, kSlabBytes - kGrain);
  // A header begins the slab's life in its class, whatever the memory held.
  return new (slab) SlabHeader{{size_class}, 0, static_cast<uint32_t>(kGrain), false,
                               nullptr, nullptr, nullptr};
}

void SlabAllocator::ReturnSlab(SlabHeader* slab) {
  ASAN_POISON_MEMORY_REGION(slab, kSlabBytes);
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (empty_resident_.size() < kKeptEmptySlabs) {
    empty_resident_.push_back(slab);
    return;
  }
  // The pages read back as zeros when the slab is taken again; its header
  // is rewritten then.
  madvise(slab, kSlabBytes, MADV_DONTNEED);
  empty_released_.push_back(slab);
  resident_slabs_.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace symbiosis::rocksdb
