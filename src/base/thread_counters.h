// ThreadCounters: sums that many threads add to and another thread reads,
// at the cost of a plain add.
//
// Each live thread owns a cache line of counters (its ThreadIndex), so an
// add is a relaxed load and store that no other thread writes: no locked
// read-modify-write. A relaxed fetch_add costs 2.1 ns on this machine's
// EPYC even uncontended (a dependent chain; 0.3 ns for a load and store),
// and an unsampled access made two: controller_bench measured the Stable
// state at +5.6 ns per access with striped fetch_add counters and +3.4 ns
// with these (bench/controller.md). Threads beyond kOwnedSlots share one
// more slot and pay for fetch_add there.
//
// A reader sums the slots with relaxed loads: it sees every add made
// before the last synchronization with the adding thread, and some of the
// ones in flight.
#ifndef SYMBIOSIS_THREAD_COUNTERS_H_
#define SYMBIOSIS_THREAD_COUNTERS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace symbiosis {

namespace thread_counters_internal {
// The calling thread's index once assigned, kUnassigned before. In the
// header so that ThreadIndex is a TLS load and a compare, not a call: the
// call cost as much as the fetch_add it replaced.
constexpr uint32_t kUnassigned = 0xffffffffu;
inline thread_local uint32_t this_thread_index = kUnassigned;
uint32_t AssignThreadIndex();
}  // namespace thread_counters_internal

// A number unique among the process's live threads: the smallest free one
// at the thread's first call, freed when the thread exits (a thread's
// destructors that run after that get a number above every slot).
// Thread-safe.
inline uint32_t ThreadIndex() {
  const uint32_t t = thread_counters_internal::this_thread_index;
  if (t != thread_counters_internal::kUnassigned) return t;
  return thread_counters_internal::AssignThreadIndex();
}

// One counter of a ThreadCounters slot.
struct Counter {
  std::atomic<uint64_t> value{0};
  uint64_t Load() const { return value.load(std::memory_order_relaxed); }
};

// Fields: a struct whose members are all Counters or arrays of them, e.g.
//   struct Counts { Counter accesses; Counter hits; };
//   ThreadCounters<Counts> counts;
//   counts.Mine().Add(&Counts::hits, 1);
template <typename Fields>
class ThreadCounters {
 public:
  static constexpr uint32_t kOwnedSlots = 64;

  // The calling thread's slot. REQUIRES: used by the thread that got it.
  class Writer {
   public:
    // Adds `value` to `field`; returns the slot's new value of it.
    uint64_t Add(Counter Fields::*field, uint64_t value) {
      return AddTo((fields_->*field).value, value);
    }

    // Adds `value` to `(*field)[i]`. REQUIRES: i < N.
    template <size_t N>
    uint64_t Add(Counter (Fields::*field)[N], size_t i, uint64_t value) {
      return AddTo((fields_->*field)[i].value, value);
    }

   private:
    friend class ThreadCounters;
    Writer(Fields* fields, bool owned) : fields_(fields), owned_(owned) {}

    uint64_t AddTo(std::atomic<uint64_t>& c, uint64_t value) {
      if (owned_) {
        const uint64_t sum = c.load(std::memory_order_relaxed) + value;
        c.store(sum, std::memory_order_relaxed);
        return sum;
      }
      return c.fetch_add(value, std::memory_order_relaxed) + value;
    }

    Fields* fields_;
    bool owned_;
  };

  Writer Mine() {
    const uint32_t t = ThreadIndex();
    if (t < kOwnedSlots) return Writer(&owned_[t].fields, true);
    return Writer(&shared_.fields, false);
  }

  // Calls visit(const Fields&) for every slot; the caller sums.
  template <typename Visit>
  void ForEach(Visit visit) const {
    for (const Slot& slot : owned_) visit(slot.fields);
    visit(shared_.fields);
  }

  // The sum of `field` over all slots.
  uint64_t Sum(Counter Fields::*field) const {
    uint64_t sum = 0;
    ForEach([&](const Fields& f) { sum += (f.*field).Load(); });
    return sum;
  }

 private:
  struct alignas(64) Slot {
    Fields fields;
  };
  std::array<Slot, kOwnedSlots> owned_{};
  Slot shared_{};
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_THREAD_COUNTERS_H_
