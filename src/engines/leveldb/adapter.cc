#include "engines/leveldb/adapter.h"

#include "symbiosis/block.h"

namespace symbiosis::leveldb {
namespace {

// LevelDB reads a block with its 5-byte trailer (type + crc32).
constexpr uint64_t kBlockTrailer = 5;

struct PendingRead {
  bool valid = false;
  bool second_tier_hit = false;
  uint64_t file_id = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t start_ns = 0;
  std::optional<SchedTimes> sched_start;
};

thread_local PendingRead pending;
thread_local bool background = false;

}  // namespace

void Adapter::MarkBackgroundThread() { background = true; }
bool Adapter::IsBackgroundThread() { return background; }

void Adapter::OnRead(uint64_t file_id, uint64_t offset, uint64_t length, bool second_tier_hit,
                     uint64_t start_ns, std::optional<SchedTimes> sched_start) {
  if (background) return;
  pending = PendingRead{true, second_tier_hit, file_id, offset, length, start_ns, sched_start};
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
  Controller* const controller = link_.accesses();
  const std::optional<SchedTimes> sched =
      controller != nullptr ? ThisThreadSchedTimesSince(read.sched_start) : std::nullopt;
  auto mine = counts_.Mine();
  mine.Add(&Counters::lookups, 1);
  mine.Add(&Counters::reads, 1);
  mine.Add(&Counters::second_tier_hits, read.second_tier_hit);
  mine.Add(&Counters::miss_ns, miss_ns);
  if (controller != nullptr) {
    const Block block{tag.file_id, offset, tag.disk_size, static_cast<uint32_t>(charge)};
    controller->RecordAppAccess(block, false);
    controller->RecordRead(block, read.second_tier_hit, miss_ns, sched);
  }
  return tag;
}

void Adapter::OnHit(const BlockTag& tag, uint64_t offset, size_t charge) {
  if (background) return;
  auto mine = counts_.Mine();
  mine.Add(&Counters::lookups, 1);
  mine.Add(&Counters::hits, 1);
  Controller* const controller = link_.accesses();
  if (controller != nullptr) {
    controller->RecordAppAccess(
        Block{tag.file_id, offset, tag.disk_size, static_cast<uint32_t>(charge)}, true);
  }
}

void Adapter::OnFileOpened(uint64_t file_id, uint64_t bytes) {
  if (Controller* c = link_.files()) c->RecordFileSize(file_id, bytes);
}

void Adapter::OnFileDeleted(uint64_t file_id) {
  if (Controller* c = link_.files()) c->RecordFileDeleted(file_id);
}

AccessCounts Adapter::Counts() const {
  AccessCounts c;
  counts_.ForEach([&c](const Counters& slot) {
    c.lookups += slot.lookups.Load();
    c.hits += slot.hits.Load();
    c.reads += slot.reads.Load();
    c.second_tier_hits += slot.second_tier_hits.Load();
    c.miss_ns += slot.miss_ns.Load();
  });
  return c;
}

}  // namespace symbiosis::leveldb
