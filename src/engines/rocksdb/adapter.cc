#include "engines/rocksdb/adapter.h"

#include <pthread.h>

#include <algorithm>
#include <cstring>

#include "symbiosis/block.h"

namespace symbiosis::rocksdb {
namespace {

// RocksDB reads a block with its 5-byte trailer (type + checksum).
constexpr uint64_t kBlockTrailer = 5;

// The lookup in progress on this thread, and the miss waiting for its read
// and its insert.
struct ThreadState {
  // kFlashHit: both DRAM tiers missed and the flash tier served.
  enum class Secondary { kNone, kHit, kMiss, kFlashHit };
  Secondary secondary = Secondary::kNone;
  uint64_t secondary_start_ns = 0;
  // Time this thread spent storing into the secondary, summed; a miss
  // subtracts what was added since it began (store_mark).
  uint64_t store_ns = 0;
  uint64_t store_mark = 0;

  bool pending = false;  // a primary and secondary miss, not yet reported
  char key[16] = {};
  bool read_seen = false;
  bool second_tier_hit = false;
  uint64_t file_id = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t start_ns = 0;
  std::optional<SchedTimes> sched_start;
};

thread_local ThreadState state;

bool SameKey(std::string_view key, const char* stored) {
  return key.size() == 16 && std::memcmp(key.data(), stored, 16) == 0;
}

// The block the pending miss read, at the offset a hit on it names
// (CacheKeyMap::KeyedOffset), so that its reads and its hits are one block
// to the ghosts. With the exact offset three blocks in four had two names,
// and the ghost of the compressed cache, filling under both, served 0.96
// of the reads the engine's served 0.99 of (hotspot10 at M/D_u 0.8).
// The bytes before the offset are added to the size: the block still ends
// where it did.
Block MissBlock(const ThreadState& s, uint64_t mem_bytes) {
  const uint64_t offset = CacheKeyMap::KeyedOffset(s.offset);
  const uint64_t disk = s.length - kBlockTrailer + (s.offset - offset);
  return Block{s.file_id, offset, static_cast<uint32_t>(disk),
               static_cast<uint32_t>(std::min<uint64_t>(UINT32_MAX, mem_bytes))};
}

// `ns`, the time of a miss, less the stores into the secondary this
// thread made since the miss began; at least 1 (0 means untimed).
uint64_t StoresLeftOut(uint64_t ns) {
  const uint64_t stored = state.store_ns - state.store_mark;
  return std::max<uint64_t>(1, ns - std::min(ns, stored));
}

}  // namespace

bool Adapter::Foreground() {
  // -1 unknown, 0 background, 1 foreground.
  thread_local int foreground = -1;
  if (foreground < 0) {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    foreground = std::strncmp(name, "rocksdb:", 8) == 0 ? 0 : 1;
  }
  return foreground == 1;
}

void Adapter::OnLookupStart(std::string_view key) {
  if (!Foreground()) return;
  state.secondary = ThreadState::Secondary::kNone;
  Controller* const controller = link_.accesses();
  if (state.pending && state.read_seen && controller != nullptr) {
    // The previous miss read its block but inserted nothing (fill_cache
    // off): report it now, untimed.
    const uint64_t disk = state.length - kBlockTrailer;
    const Block block = MissBlock(state, (disk << 12) / std::max<uint32_t>(1, DiskPerMem()));
    controller->RecordAppAccess(block, false);
    controller->RecordRead(block, state.second_tier_hit);
  }
  state.pending = false;
}

void Adapter::OnSecondaryLookup(bool hit, uint64_t start_ns) {
  if (!Foreground()) return;
  state.secondary = hit ? ThreadState::Secondary::kHit : ThreadState::Secondary::kMiss;
  state.secondary_start_ns = start_ns;
  state.store_mark = state.store_ns;
}

void Adapter::OnFlashHit() {
  if (!Foreground()) return;
  state.secondary = ThreadState::Secondary::kFlashHit;
}

void Adapter::OnFlashInsert(uint64_t ns) {
  if (Foreground()) state.store_ns += ns;
}

void Adapter::OnSecondaryStore(uint64_t ns) {
  if (!Foreground()) return;
  state.store_ns += ns;
  auto mine = counts_.Mine();
  mine.Add(&Counters::second_tier_stores, 1);
  mine.Add(&Counters::store_ns, ns);
  if (Controller* const controller = link_.accesses()) controller->RecordSecondTierStore(ns);
}

void Adapter::OnLookupEnd(std::string_view key, bool found, size_t size) {
  if (!Foreground()) return;
  auto mine = counts_.Mine();
  mine.Add(&Counters::lookups, 1);
  const bool primary_hit = found && state.secondary == ThreadState::Secondary::kNone;
  const bool secondary_hit = found && state.secondary == ThreadState::Secondary::kHit;
  const bool flash_hit = found && state.secondary == ThreadState::Secondary::kFlashHit;
  if (primary_hit) mine.Add(&Counters::hits, 1);
  // A secondary hit's time runs to here: the block's promotion into the
  // primary, and the eviction that makes room for it, are part of the
  // miss as a device read's insert is part of its; the store the eviction
  // may cause is not (StoresLeftOut).
  // A flash hit is, to the split of DRAM, a device read that was fast.
  const uint64_t secondary_ns = secondary_hit || flash_hit
                                    ? StoresLeftOut(SteadyNowNs() - state.secondary_start_ns)
                                    : 0;
  if (secondary_hit || flash_hit) {
    mine.Add(&Counters::reads, 1);
    mine.Add(&Counters::second_tier_hits, secondary_hit);
    mine.Add(&Counters::flash_hits, flash_hit);
    mine.Add(&Counters::miss_ns, secondary_ns);
  }
  if (!found) {  // the read and the insert follow on this thread
    if (key.size() == 16) {
      state.pending = true;
      state.read_seen = false;
      state.store_mark = state.store_ns;
      std::memcpy(state.key, key.data(), 16);
    }
    return;
  }
  Controller* const controller = link_.accesses();
  if (controller == nullptr || size == 0) return;  // size 0: a pending handle
  // Outside a round a hit is only counted (and a secondary hit timed):
  // naming its block (a probe of the key map) was 1.6% of the process's
  // CPU time, the most of any Symbiosis function, in Stable (hotspot10 at
  // M/D_u 0.8).
  if (!controller->simulating()) {
    controller->RecordAppAccessUnidentified(primary_hit);
    if (secondary_hit || flash_hit) controller->RecordReadUnidentified(secondary_hit, secondary_ns);
    return;
  }
  const std::optional<KeyLocation> where = key_map_.Find(key);
  if (!where) {
    mine.Add(&Counters::unmapped, 1);
    return;
  }
  const Block block{where->file_id, where->offset, DiskBytes(size),
                    static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX))};
  controller->RecordAppAccess(block, primary_hit);
  if (secondary_hit || flash_hit) controller->RecordRead(block, secondary_hit, secondary_ns);
}

void Adapter::OnRead(uint64_t file_id, uint64_t offset, uint64_t n, bool second_tier_hit,
                     uint64_t start_ns, std::optional<SchedTimes> sched_start) {
  // The last read before the insert is the block's (a table's first use
  // may read its footer and index in between).
  if (!Foreground() || !state.pending || n <= kBlockTrailer) return;
  state.read_seen = true;
  state.second_tier_hit = second_tier_hit;
  state.file_id = file_id;
  state.offset = offset;
  state.length = n;
  state.start_ns = start_ns;
  state.sched_start = sched_start;
}

void Adapter::OnInsert(std::string_view key, size_t charge, size_t size) {
  if (!Foreground() || !state.pending || !state.read_seen || !SameKey(key, state.key) ||
      size == 0) {
    return;
  }
  state.pending = false;
  key_map_.Learn(key, state.file_id, state.offset);
  const uint64_t disk = state.length - kBlockTrailer;
  LearnRatio(disk, size);
  LearnReadOverhead(charge, size);
  const uint64_t stored_ns = state.store_ns - state.store_mark;
  const uint64_t miss_ns = StoresLeftOut(SteadyNowNs() - state.start_ns);
  auto mine = counts_.Mine();
  mine.Add(&Counters::reads, 1);
  mine.Add(&Counters::second_tier_hits, state.second_tier_hit);
  mine.Add(&Counters::miss_ns, miss_ns);
  Controller* const controller = link_.accesses();
  if (controller == nullptr) return;
  std::optional<SchedTimes> sched = ThisThreadSchedTimesSince(state.sched_start);
  if (sched) sched->cpu_ns -= std::min(sched->cpu_ns, stored_ns);  // stores run on a CPU
  const Block block = MissBlock(state, size);
  controller->RecordAppAccess(block, false);
  controller->RecordRead(block, state.second_tier_hit, miss_ns, sched);
}

uint32_t Adapter::DiskPerMem() const { return disk_per_mem_.load(std::memory_order_relaxed); }

uint32_t Adapter::DiskBytes(size_t size) const {
  const uint64_t bytes = size * uint64_t{DiskPerMem()} >> 12;
  return static_cast<uint32_t>(std::clamp<uint64_t>(bytes, 1, UINT32_MAX));
}

void Adapter::LearnRatio(uint64_t disk, size_t size) {
  if (size == 0) return;
  const uint64_t now = std::min<uint64_t>(4096, (disk << 12) / size);
  const uint32_t old = DiskPerMem();
  disk_per_mem_.store(static_cast<uint32_t>((old * 63 + now) / 64), std::memory_order_relaxed);
}

void Adapter::LearnReadOverhead(size_t charge, size_t size) {
  if (charge < size || charge - size > 65535) return;  // not a block's memory usage
  const uint32_t now = static_cast<uint32_t>(charge - size) << 4;
  const uint32_t old = read_overhead_.load(std::memory_order_relaxed);
  const uint32_t mean = old == 0 ? now : (old * 63 + now) / 64;
  read_overhead_.store(mean, std::memory_order_relaxed);
  const uint32_t bytes = mean >> 4;
  const uint32_t told = read_overhead_told_.load(std::memory_order_relaxed);
  if (told != kNeverTold && bytes + 4 > told && told + 4 > bytes) return;
  read_overhead_told_.store(bytes, std::memory_order_relaxed);
  if (Controller* c = link_.files()) c->SetReadChargeOverhead(bytes);
}

std::vector<uint64_t> Adapter::OnFileDeleted(uint64_t file_id) {
  if (Controller* c = link_.files()) c->RecordFileDeleted(file_id);
  return key_map_.Forget(file_id);
}

void Adapter::OnFileOpened(uint64_t file_id, uint64_t bytes) {
  if (Controller* c = link_.files()) c->RecordFileSize(file_id, bytes);
}

AccessCounts Adapter::Counts() const {
  AccessCounts c;
  counts_.ForEach([&c](const Counters& slot) {
    c.lookups += slot.lookups.Load();
    c.hits += slot.hits.Load();
    c.reads += slot.reads.Load();
    c.second_tier_hits += slot.second_tier_hits.Load();
    c.flash_hits += slot.flash_hits.Load();
    c.miss_ns += slot.miss_ns.Load();
    c.second_tier_stores += slot.second_tier_stores.Load();
    c.store_ns += slot.store_ns.Load();
    c.unmapped += slot.unmapped.Load();
  });
  return c;
}

}  // namespace symbiosis::rocksdb
