#include "engines/leveldb/adapter.h"

#include "symbiosis/block.h"

namespace symbiosis::leveldb {
namespace {

// LevelDB reads a block with its 5-byte trailer (type + crc32).
constexpr uint64_t kBlockTrailer = 5;

struct PendingRead {
  bool valid = false;
  bool kernel_hit = false;
  uint64_t file_id = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t start_ns = 0;
  std::optional<SchedTimes> sched_start;
};

thread_local PendingRead pending;
thread_local bool background = false;

uint32_t NextSlot() {
  static std::atomic<uint32_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

void Adapter::MarkBackgroundThread() { background = true; }
bool Adapter::IsBackgroundThread() { return background; }

Adapter::Slot& Adapter::MySlot() {
  thread_local const uint32_t slot = NextSlot();
  return slots_[slot % kSlots];
}

void Adapter::OnRead(uint64_t file_id, uint64_t offset, uint64_t length, bool kernel_hit,
                     uint64_t start_ns, std::optional<SchedTimes> sched_start) {
  if (background) return;
  pending = PendingRead{true, kernel_hit, file_id, offset, length, start_ns, sched_start};
}

BlockTag Adapter::OnInsert(uint64_t offset, size_t charge) {
  BlockTag tag;
  const PendingRead read = pending;
  pending.valid = false;
  if (background || !read.valid || read.offset != offset || read.length <= kBlockTrailer ||
      charge == 0) {
    return tag;  // not a foreground block read (or one we cannot size)
  }
  tag.file_id = read.file_id;
  tag.disk_size = static_cast<uint32_t>(read.length - kBlockTrailer);
  tag.tracked = true;
  const uint64_t miss_ns = SteadyNowNs() - read.start_ns;
  std::optional<SchedTimes> sched;
  if (read.sched_start && controller_ != nullptr) {
    if (const std::optional<SchedTimes> end = ThisThreadSchedTimes()) {
      sched = SchedTimesSince(*read.sched_start, *end);
    }
  }
  Slot& slot = MySlot();
  slot.lookups.fetch_add(1, std::memory_order_relaxed);
  slot.reads.fetch_add(1, std::memory_order_relaxed);
  slot.kernel_hits.fetch_add(read.kernel_hit, std::memory_order_relaxed);
  slot.miss_ns.fetch_add(miss_ns, std::memory_order_relaxed);
  if (controller_ != nullptr) {
    const Block block{tag.file_id, offset, tag.disk_size, static_cast<uint32_t>(charge)};
    controller_->RecordAppAccess(block, false);
    controller_->RecordRead(block, read.kernel_hit, miss_ns, sched);
  }
  return tag;
}

void Adapter::OnHit(const BlockTag& tag, uint64_t offset, size_t charge) {
  if (background) return;
  Slot& slot = MySlot();
  slot.lookups.fetch_add(1, std::memory_order_relaxed);
  slot.hits.fetch_add(1, std::memory_order_relaxed);
  if (controller_ != nullptr) {
    controller_->RecordAppAccess(
        Block{tag.file_id, offset, tag.disk_size, static_cast<uint32_t>(charge)}, true);
  }
}

void Adapter::OnFileOpened(uint64_t file_id, uint64_t bytes) {
  if (controller_ != nullptr) controller_->RecordFileSize(file_id, bytes);
}

void Adapter::OnFileDeleted(uint64_t file_id) {
  if (controller_ != nullptr) controller_->RecordFileDeleted(file_id);
}

AccessCounts Adapter::Counts() const {
  AccessCounts c;
  for (const Slot& slot : slots_) {
    c.lookups += slot.lookups.load(std::memory_order_relaxed);
    c.hits += slot.hits.load(std::memory_order_relaxed);
    c.reads += slot.reads.load(std::memory_order_relaxed);
    c.kernel_hits += slot.kernel_hits.load(std::memory_order_relaxed);
    c.miss_ns += slot.miss_ns.load(std::memory_order_relaxed);
  }
  return c;
}

}  // namespace symbiosis::leveldb
