#include "budget/page_cache_room.h"

#include <pthread.h>

#include <optional>
#include <utility>

namespace symbiosis {

int64_t PageCacheOffset(uint64_t limit, uint64_t memory, const CgroupMemoryUsage& usage,
                        uint64_t app_usage) {
  // usage and memory.stat are read apart, so file may exceed usage.
  const uint64_t not_file = usage.usage > usage.file ? usage.usage - usage.file : 0;
  const uint64_t other = not_file > app_usage ? not_file - app_usage : 0;
  return static_cast<int64_t>(limit) - static_cast<int64_t>(memory) -
         static_cast<int64_t>(other);
}

PageCacheRoomMonitor::PageCacheRoomMonitor(MemoryCgroup cgroup, uint64_t memory,
                                           std::function<uint64_t()> app_usage,
                                           std::function<void()> release_free_memory,
                                           std::function<void(int64_t)> apply,
                                           std::chrono::milliseconds interval)
    : cgroup_(std::move(cgroup)),
      memory_(memory),
      app_usage_(std::move(app_usage)),
      release_free_memory_(std::move(release_free_memory)),
      apply_(std::move(apply)),
      interval_(interval),
      thread_([this] { Run(); }) {}

PageCacheRoomMonitor::~PageCacheRoomMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
}

void PageCacheRoomMonitor::Update() {
  if (release_free_memory_) release_free_memory_();
  try {
    const std::optional<uint64_t> limit = ReadMemoryLimit(cgroup_);
    if (!limit) return;
    const CgroupMemoryUsage usage = ReadMemoryUsage(cgroup_);
    apply_(PageCacheOffset(*limit, memory_, usage, app_usage_()));
  } catch (const CgroupError&) {
    return;  // the cgroup went away or a file was unreadable: try again later
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++updates_;
}

uint64_t PageCacheRoomMonitor::updates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return updates_;
}

void PageCacheRoomMonitor::Run() {
  pthread_setname_np(pthread_self(), "symbiosis-room");  // for top -H and /proc
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    Update();
    lock.lock();
    stop_cv_.wait_for(lock, interval_, [this] { return stop_; });
  }
}

}  // namespace symbiosis
