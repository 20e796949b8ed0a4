#include "base/thread_counters.h"

#include <mutex>
#include <vector>

namespace symbiosis {
namespace {

// Never destroyed: threads may exit after static destruction began.
struct IndexRegistry {
  std::mutex mu;
  std::vector<bool> used;
};
IndexRegistry& Registry() {
  static IndexRegistry* registry = new IndexRegistry;
  return *registry;
}

// After its holder is gone, a thread counts in the shared slot: its index
// may be someone else's by then.
using thread_counters_internal::kUnassigned;
using thread_counters_internal::this_thread_index;
constexpr uint32_t kExited = kUnassigned - 1;

// Owns the thread's index; frees it when the thread exits.
struct IndexHolder {
  uint32_t index;
  IndexHolder() {
    IndexRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    index = 0;
    while (index < r.used.size() && r.used[index]) ++index;
    if (index == r.used.size()) r.used.push_back(false);
    r.used[index] = true;
  }
  ~IndexHolder() {
    this_thread_index = kExited;
    IndexRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.used[index] = false;
  }
};

}  // namespace

namespace thread_counters_internal {
uint32_t AssignThreadIndex() {
  thread_local IndexHolder holder;
  if (this_thread_index == kUnassigned) this_thread_index = holder.index;
  return this_thread_index;
}
}  // namespace thread_counters_internal

}  // namespace symbiosis
