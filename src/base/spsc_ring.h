// SpscRing: a bounded queue from one producer thread to one consumer
// thread, without locks: the producer never waits (TryPush fails when the
// ring is full, and the caller counts the drop), so a server's thread that
// hands work to a helper pays two loads and two stores per item.
//
// Invariants: head_ (next slot to read) is written only by the consumer,
// tail_ (next slot to write) only by the producer; head_ <= tail_ <=
// head_ + capacity. A slot is written before tail_ is released past it and
// read before head_ is released past it.

#ifndef SYMBIOSIS_BASE_SPSC_RING_H_
#define SYMBIOSIS_BASE_SPSC_RING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace symbiosis {

template <typename T>
class SpscRing {
 public:
  // REQUIRES: capacity is a power of two.
  explicit SpscRing(size_t capacity) : slots_(capacity), mask_(capacity - 1) {}
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  // Producer only. False (and nothing queued) when the ring is full.
  bool TryPush(const T& item) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) > mask_) return false;
    slots_[tail & mask_] = item;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  // Consumer only. Moves up to `max` items to `out` (appended); how many.
  size_t PopInto(std::vector<T>* out, size_t max) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    const uint64_t available = tail_.load(std::memory_order_acquire) - head;
    const size_t n = available < max ? static_cast<size_t>(available) : max;
    for (size_t i = 0; i < n; i++) out->push_back(slots_[(head + i) & mask_]);
    head_.store(head + n, std::memory_order_release);
    return n;
  }

  size_t MemoryUsage() const { return slots_.capacity() * sizeof(T); }

 private:
  std::vector<T> slots_;
  const uint64_t mask_;
  alignas(64) std::atomic<uint64_t> head_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_BASE_SPSC_RING_H_
