// PageCacheRoom: how much the kernel page cache really holds beside an
// engine's application cache, when the budget is a memory cgroup.
//
// The Controller splits M = limit - reserve and assumes the page cache
// gets M - M_a. It gets what the cgroup has left: the limit less every
// charge that is not page cache (the application cache, the engine's heap
// and memtables, allocator fragmentation, kernel memory). In LevelDB runs
// here that other memory was 8 MiB with an 8 MiB block cache, 20 MiB with
// 224 MiB, and 25 MiB after shrinking from 96 MiB back to 8 MiB (freed
// blocks pin half-used heap pages), against a 32 MiB reserve: the page
// cache held up to 24 MiB more than M - M_a, and the kernel ghost,
// predicting for M - M_a, was off by a factor of 1.5 in L_e when the data
// barely fit. The difference is the offset handed on (to
// Controller::SetKernelCacheOffset, in the engines).

#ifndef SYMBIOSIS_BUDGET_PAGE_CACHE_ROOM_H_
#define SYMBIOSIS_BUDGET_PAGE_CACHE_ROOM_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "symbiosis/cgroup.h"

namespace symbiosis {

// Bytes the page cache can hold beyond M - M_a: limit - M - (charges that
// are not page cache, less the application cache's `app_usage` of them).
// Negative when the engine's other memory exceeds the reserve.
int64_t PageCacheOffset(uint64_t limit, uint64_t memory, const CgroupMemoryUsage& usage,
                        uint64_t app_usage);

// A thread that measures PageCacheOffset of `cgroup` every `interval` and
// hands it to `apply`. Stops (and joins) on destruction.
class PageCacheRoomMonitor {
 public:
  // `release_free_memory` (may be empty) runs before each measurement, so
  // that memory the engine freed but its allocator kept is returned and
  // not counted (e.g. malloc_trim).
  // REQUIRES: `app_usage`, `release_free_memory` and `apply` are callable
  // from another thread until the monitor is destroyed.
  PageCacheRoomMonitor(MemoryCgroup cgroup, uint64_t memory, std::function<uint64_t()> app_usage,
                       std::function<void()> release_free_memory,
                       std::function<void(int64_t)> apply, std::chrono::milliseconds interval);
  ~PageCacheRoomMonitor();
  PageCacheRoomMonitor(const PageCacheRoomMonitor&) = delete;
  PageCacheRoomMonitor& operator=(const PageCacheRoomMonitor&) = delete;

  // Measures and applies once (also done every interval).
  void Update();
  // Measurements applied so far; cgroup files that cannot be read skip one.
  uint64_t updates() const;

 private:
  void Run();

  const MemoryCgroup cgroup_;
  const uint64_t memory_;
  const std::function<uint64_t()> app_usage_;
  const std::function<void()> release_free_memory_;
  const std::function<void(int64_t)> apply_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  uint64_t updates_ = 0;
  std::thread thread_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_BUDGET_PAGE_CACHE_ROOM_H_
