// KrrStack: KRR's probabilistic stack (krr.h explains why it works): each
// access returns the key's K-LRU stack distance, in objects or in bytes, so
// that an access hits every K-LRU cache of at least that many objects
// (bytes), in law. KrrMrc builds curves from it; the online Controller's
// ghost uses it for engines whose cache evicts by random sampling.
//
// Capacity: keys deeper than it are forgotten (their next access is a
// cold miss), so memory follows the capacity, not the keys ever seen. The
// stack is trimmed to the capacity when it holds 1.5 times it; a key
// accessed from beyond the stack enters at its bottom, which is where an
// unbounded stack's chain would first land above that depth up to the
// overshoot of one jump.
//
// Not thread-safe.

#ifndef SYMBIOSIS_KRR_STACK_H_
#define SYMBIOSIS_KRR_STACK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "symbiosis/cache_unit.h"

namespace symbiosis {

struct KrrStackOptions {
  CacheUnit unit = CacheUnit::kObjects;
  uint32_t k = 5;           // keys drawn per eviction
  double k_exponent = 1.4;  // K' = K^k_exponent
  double size_base = 1.2;   // bytes mode: spacing of the exact positions
  uint64_t seed = 1;
  uint64_t capacity = std::numeric_limits<uint64_t>::max();  // objects or bytes
};

class KrrStack {
 public:
  static constexpr uint64_t kColdMiss = std::numeric_limits<uint64_t>::max();

  // Throws InputError for k = 0, a k_exponent outside (0, 4] or a
  // size_base outside (1, 2].
  explicit KrrStack(const KrrStackOptions& options);
  ~KrrStack();
  KrrStack(const KrrStack&) = delete;
  KrrStack& operator=(const KrrStack&) = delete;

  // Moves `key` to the top and returns its distance before the access
  // (rounded up in bytes mode), or kColdMiss. REQUIRES: 0 < size in bytes
  // mode.
  uint64_t Access(uint64_t key, uint32_t size);

  // Forgets every key for which `drop` is true; the others keep their
  // order and close up (a spatial sample lowering its rate). O(entries).
  void Erase(const std::function<bool(uint64_t key)>& drop);

  // Shrinking trims the bottom at once.
  void SetCapacity(uint64_t capacity);
  uint64_t capacity() const;
  size_t entries() const;
  uint64_t tracked() const;  // objects or bytes in the stack
  size_t MemoryUsage() const;
  std::vector<uint64_t> Keys() const;  // from the top

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_KRR_STACK_H_
