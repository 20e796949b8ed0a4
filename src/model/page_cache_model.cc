#include "symbiosis/page_cache_model.h"

#include <algorithm>
#include <bit>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbiosis/error.h"
#include "symbiosis/hash.h"

namespace symbiosis {
namespace {

// A page is named by one 64-bit key, (file index << 40) | page, so the
// slot index can identify it by Mix64(key), a bijection. 40 bits of page
// number cover files up to 4 PiB; 24 bits of file index, 16 M live files.
constexpr int kPageBits = 40;
constexpr uint64_t kMaxPage = (uint64_t{1} << kPageBits) - 1;
constexpr uint32_t kMaxFiles = uint32_t{1} << (64 - kPageBits);

inline uint64_t PageKey(uint32_t file, uint64_t page) {
  return (uint64_t{file} << kPageBits) | page;
}
inline uint32_t FileOfKey(uint64_t key) {
  return static_cast<uint32_t>(key >> kPageBits);
}

// Lists live in the slot array: slots 0..2 are the circular lists' heads,
// so linking and unlinking never branch on an empty list. head.next is the
// most recent entry (MRU), head.prev the oldest.
enum List : uint8_t { kInactive = 0, kActive = 1, kShadows = 2, kFree = 3 };
constexpr uint32_t kListHeads = 3;
constexpr uint32_t kNoSlot = UINT32_MAX;

// Page flags, kept in the index (below). The first two are the kernel's.
constexpr uint8_t kReferenced = 1;  // PG_referenced
constexpr uint8_t kReadahead = 2;   // PG_readahead: touching it starts async RA
constexpr uint8_t kNew = 4;         // added by the read in progress
constexpr uint8_t kShadow = 8;      // evicted: the bucket is a shadow entry

// GCC deems __builtin_prefetch free of side effects, so it treats a
// function that only prefetches as pure and deletes calls to it (the
// public Prefetch included). The empty volatile asm is a side effect that
// keeps the prefetch; it emits no instruction.
inline void PrefetchLine(const void* address) {
  __builtin_prefetch(address);
  asm volatile("" : : "r"(address));
}

// A shadow's stamp keeps the low 56 bits of the eviction clock; refault
// distances are taken modulo 2^56, exact below 2^56 ticks (centuries of
// evictions at the model's speed).
constexpr int kStampBits = 56;
constexpr uint64_t kStampMask = (uint64_t{1} << kStampBits) - 1;

// A slot holds what the lists need: the links, and for the page's way back
// to its bucket, the key. 24 bytes.
struct Slot {
  uint64_t key;                  // PageKey(file, page)
  uint64_t stamp : kStampBits;   // shadow: eviction clock at its eviction
  uint64_t list : 64 - kStampBits;  // List
  uint32_t prev;
  uint32_t next;  // also the free list's link
};
static_assert(sizeof(Slot) == 24, "a slot should stay 24 bytes");

// PageIndex: open addressing from Mix64(key) to the page's slot, linear
// probing, deletion by backward shift (no tombstones), doubling at 3/4
// load; the home bucket is the hash's top bits.
//
// Why 16-byte buckets holding the full hash and the page flags: Mix64 is
// a bijection, so the full hash names the page and a lookup never needs
// the slot to confirm a match; and with the flags here, the common steps
// (is the page resident? was it read before? mark it referenced; is it the
// read-ahead marker?) cost one cache miss, the bucket. The slot is read
// only to move the page between lists. Which list a resident page is on
// stays in the slot alone, so reclaim moving pages from active to inactive
// touches no bucket.
class PageIndex {
 public:
  struct Bucket {
    uint64_t hash;  // Mix64(key)
    uint32_t slot;  // kNoSlot in an unused bucket
    uint32_t flags;
  };
  static_assert(sizeof(Bucket) == 16, "four buckets per cache line");

  PageIndex() { Reset(kMinBits); }

  // The page's bucket, or nullptr. Valid until the next Insert or Erase.
  Bucket* Find(uint64_t hash) {
    for (size_t i = Home(hash);; i = (i + 1) & mask_) {
      Bucket& bucket = buckets_[i];
      if (bucket.slot == kNoSlot) return nullptr;
      if (bucket.hash == hash) return &bucket;
    }
  }
  const Bucket* Find(uint64_t hash) const {
    return const_cast<PageIndex*>(this)->Find(hash);
  }

  // REQUIRES: `hash` is absent. Returns its new bucket, flags 0.
  Bucket* Insert(uint64_t hash, uint32_t slot) {
    if (size_ + 1 > max_size_) Rehash(bits_ + 1);
    ++size_;
    return Place(Bucket{hash, slot, 0});
  }

  // REQUIRES: `bucket` is one of this index's buckets in use.
  void Erase(Bucket* bucket) {
    size_t hole = static_cast<size_t>(bucket - buckets_.data());
    // Backward shift: pull later members of the run into the hole unless
    // that would move them before their home bucket.
    for (size_t i = (hole + 1) & mask_; buckets_[i].slot != kNoSlot;
         i = (i + 1) & mask_) {
      const size_t home = Home(buckets_[i].hash);
      if (((i - home) & mask_) >= ((i - hole) & mask_)) {
        buckets_[hole] = buckets_[i];
        hole = i;
      }
    }
    buckets_[hole].slot = kNoSlot;
    --size_;
  }

  void Prefetch(uint64_t hash) const {
    PrefetchLine(&buckets_[Home(hash)]);
  }

  size_t MemoryUsage() const { return buckets_.capacity() * sizeof(Bucket); }

 private:
  static constexpr int kMinBits = 10;

  size_t Home(uint64_t hash) const { return hash >> (64 - bits_); }

  Bucket* Place(const Bucket& entry) {
    size_t i = Home(entry.hash);
    while (buckets_[i].slot != kNoSlot) i = (i + 1) & mask_;
    buckets_[i] = entry;
    return &buckets_[i];
  }

  void Reset(int bits) {
    bits_ = bits;
    mask_ = (size_t{1} << bits) - 1;
    max_size_ = (mask_ + 1) / 4 * 3;
    std::vector<Bucket>(mask_ + 1, Bucket{0, kNoSlot, 0}).swap(buckets_);
  }

  void Rehash(int bits) {
    std::vector<Bucket> old;
    old.swap(buckets_);
    Reset(bits);
    for (const Bucket& bucket : old) {
      if (bucket.slot != kNoSlot) Place(bucket);
    }
  }

  std::vector<Bucket> buckets_;
  int bits_ = 0;  // log2 of the bucket count
  size_t mask_ = 0;
  size_t max_size_ = 0;
  size_t size_ = 0;
};
using Bucket = PageIndex::Bucket;

// SWAP_CLUSTER_MAX: memcg limit reclaim frees pages in batches of 32, and
// decides once per batch whether the active list may be aged.
constexpr uint64_t kReclaimBatch = 32;

uint64_t IntSqrt(uint64_t x) {
  uint64_t r = 0;
  for (uint64_t bit = uint64_t{1} << 62; bit != 0; bit >>= 2) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}

// get_init_ra_size: the first window of a stream, from the request size
// rounded up to a power of two. For the default 32-page maximum: 1-2
// pages -> 4, 3-4 -> 8, 5-8 -> 16, more -> 32.
uint64_t InitialWindow(uint64_t request, uint64_t max) {
  const uint64_t size = std::bit_ceil(request);
  if (size <= max / 32) return size * 4;
  if (size <= max / 4) return size * 2;
  return max;
}

// get_next_ra_size: ramp up fast while the window is small, then double,
// never past the maximum.
uint64_t NextWindow(uint64_t current, uint64_t max) {
  if (current < max / 16) return current * 4;
  if (current <= max / 2) return current * 2;
  return max;
}

// struct file_ra_state, plus what the model needs per file. One per file
// id: engines open one file description per table file and share it, and
// Linux keeps this state per open file description.
struct FileState {
  uint64_t id = 0;
  int64_t prev_pos = -1;          // byte after the previous read; -1: none
  uint64_t ra_start = 0;          // the last read-ahead window
  uint64_t ra_size = 0;
  uint64_t ra_async_size = 0;     // marker at ra_start + ra_size - this
  uint64_t last_page = UINT64_MAX;  // (size - 1) >> 12; UINT64_MAX: unknown
  uint64_t entries = 0;           // resident pages + shadows, for DropFile
};

}  // namespace

// Invariants:
//  - Every page in use (resident or shadow) has exactly one slot, on the
//    list its `list` names, and one bucket in index_, flagged kShadow iff
//    the slot is on the shadow list; free slots are on the free list only.
//    inactive_, active_, shadows_ count the three lists.
//  - kNew is set only while Read runs, on the pages in added_.
//  - inactive_ + active_ <= capacity_pages_ between public calls.
//  - Shadows are kept only with two_queue and refault_activation, at most
//    shadow_limit() of them, ordered by eviction (oldest at the tail).
//  - With two_queue off every resident page is on the inactive list, which
//    is then a plain LRU list.
class PageCacheModel::Rep {
 public:
  explicit Rep(const PageCacheOptions& options)
      : options_(options),
        capacity_pages_(options.capacity_bytes >> kPageShift),
        max_window_(options.readahead ? options.max_readahead_pages : 0) {
    slots_.resize(kListHeads);
    for (uint32_t head = 0; head < kListHeads; ++head) {
      slots_[head] = Slot{0, 0, head, head, head};
    }
  }

  PageAccessResult Read(uint64_t file_id, uint64_t pos, uint64_t len);
  void InsertPages(uint64_t file_id, uint64_t first, uint64_t last);
  void DropPages(uint64_t file_id, uint64_t first, uint64_t last);
  void DropFile(uint64_t file_id);
  void SetCapacity(uint64_t bytes);
  void SetFileSize(uint64_t file_id, uint64_t bytes);
  bool Contains(uint64_t file_id, uint64_t page) const;
  void Prefetch(uint64_t file_id, uint64_t first, uint64_t last) const;

  const PageCacheOptions& options() const { return options_; }
  uint64_t capacity_pages() const { return capacity_pages_; }
  uint64_t resident() const { return inactive_ + active_; }
  uint64_t inactive() const { return inactive_; }
  uint64_t active() const { return active_; }
  uint64_t shadows() const { return shadows_; }
  size_t MemoryUsage() const {
    // A hash node holds the pair, a next pointer and the cached hash.
    const size_t file_id_node = 32;
    return slots_.capacity() * sizeof(Slot) + index_.MemoryUsage() +
           files_.capacity() * sizeof(FileState) +
           file_ids_.size() * file_id_node +
           file_ids_.bucket_count() * sizeof(void*);
  }

 private:
  // --- Slots, lists and the index.
  Bucket* Find(uint32_t file, uint64_t page) {
    return index_.Find(Mix64(PageKey(file, page)));
  }
  bool IsResident(uint32_t file, uint64_t page) const {
    return IsResident(index_.Find(Mix64(PageKey(file, page))));
  }
  static bool IsResident(const Bucket* bucket) {
    return bucket != nullptr && (bucket->flags & kShadow) == 0;
  }
  Bucket* BucketOf(uint32_t slot) {
    return index_.Find(Mix64(slots_[slot].key));
  }
  Bucket* NewPage(uint64_t key);
  void FreeSlot(Bucket* bucket);
  void Unlink(uint32_t slot);
  void PushMru(uint32_t slot, List list);
  void Move(uint32_t slot, List list);
  void PrefetchTail(List list) const;
  void PrefetchTails(List list, uint64_t count) const;
  uint64_t& ListCount(List list);

  // --- Files.
  static void CheckRange(uint64_t pos, uint64_t len);
  uint32_t FileIndex(uint64_t file_id);  // creates the state
  int64_t FindFile(uint64_t file_id) const;

  // --- Replacement (mm/swap.c, mm/vmscan.c, mm/workingset.c).
  Bucket* AddPage(uint32_t file, uint64_t page);
  void MarkAccessed(Bucket* bucket);
  void MakeRoom(uint64_t target);
  void ReclaimOne();
  void StartReclaimRound();
  bool InactiveIsLow() const;
  void Demote(uint64_t pages);
  void Evict();
  void DropOldestShadow();
  uint64_t shadow_limit() const { return capacity_pages_; }
  bool keeps_shadows() const {
    return options_.two_queue && options_.refault_activation;
  }

  // --- Read-ahead (mm/readahead.c).
  void SyncReadahead(uint32_t file, uint64_t index, uint64_t request);
  bool InSample(uint32_t file, uint64_t page) const;
  void AsyncReadahead(uint32_t file, Bucket* bucket, uint64_t index,
                      uint64_t request);
  void ReadRange(uint32_t file, uint64_t start, uint64_t count,
                 uint64_t async_size);
  uint64_t NextMiss(uint32_t file, uint64_t index, uint64_t max_scan) const;
  uint64_t PrevMiss(uint32_t file, uint64_t index, uint64_t max_scan) const;

  PageCacheOptions options_;
  uint64_t capacity_pages_;
  const uint64_t max_window_;  // read-ahead window in pages; 0: off
  std::vector<Slot> slots_;
  uint32_t free_slots_ = kNoSlot;
  PageIndex index_;
  uint64_t inactive_ = 0;
  uint64_t active_ = 0;
  uint64_t shadows_ = 0;

  std::unordered_map<uint64_t, uint32_t> file_ids_;
  std::vector<FileState> files_;
  std::vector<uint32_t> free_files_;

  // Workingset state: the eviction clock (lruvec->nonresident_age) and
  // the reclaim round (see the comment above AddPage).
  uint64_t clock_ = 0;
  uint64_t refault_activations_ = 0;
  uint64_t refaults_at_round_start_ = 0;
  uint64_t round_evictions_ = 0;

  // While Read runs: its result and requested pages [first, end), so that
  // AddPage can count the pages read ahead, and the hashes of the pages it
  // added (marked kNew until it returns).
  PageAccessResult* result_ = nullptr;
  std::vector<uint64_t> added_;
  uint64_t request_first_ = 0;
  uint64_t request_end_ = 0;
};

// ---------------------------------------------------------------------------
// Slots, lists and the index.

Bucket* PageCacheModel::Rep::NewPage(uint64_t key) {
  uint32_t slot = free_slots_;
  if (slot != kNoSlot) {
    free_slots_ = slots_[slot].next;
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(Slot{});
  }
  slots_[slot].key = key;
  ++files_[FileOfKey(key)].entries;
  return index_.Insert(Mix64(key), slot);
}

// REQUIRES: the bucket's slot is unlinked.
void PageCacheModel::Rep::FreeSlot(Bucket* bucket) {
  const uint32_t slot = bucket->slot;
  Slot& s = slots_[slot];
  index_.Erase(bucket);
  --files_[FileOfKey(s.key)].entries;
  s.list = kFree;
  s.next = free_slots_;
  free_slots_ = slot;
}

uint64_t& PageCacheModel::Rep::ListCount(List list) {
  return list == kInactive ? inactive_ : list == kActive ? active_ : shadows_;
}

void PageCacheModel::Rep::Unlink(uint32_t slot) {
  Slot& s = slots_[slot];
  slots_[s.prev].next = s.next;
  slots_[s.next].prev = s.prev;
  --ListCount(static_cast<List>(s.list));
}

void PageCacheModel::Rep::PushMru(uint32_t slot, List list) {
  Slot& s = slots_[slot];
  Slot& head = slots_[list];
  s.list = list;
  s.prev = list;
  s.next = head.next;
  slots_[head.next].prev = slot;
  head.next = slot;
  ++ListCount(list);
}

void PageCacheModel::Rep::Move(uint32_t slot, List list) {
  Unlink(slot);
  PushMru(slot, list);
}

// Reclaim walks the lists from their tails, so the pages it takes next are
// known one step ahead: after taking a tail, the new tail's slot is in the
// CPU cache (unlinking wrote it), and prefetching its bucket and its
// predecessor's slot means the next step finds both there instead of
// waiting on memory for each in turn.
void PageCacheModel::Rep::PrefetchTail(List list) const {
  const Slot& tail = slots_[slots_[list].prev];
  PrefetchLine(&slots_[tail.prev]);
  index_.Prefetch(Mix64(tail.key));
}

// A read-ahead window adds many pages at once, each evicting the inactive
// tail and maybe dropping the oldest shadow; one step of look-ahead does
// not hide that burst. Walking the next `count` tails first issues all
// their bucket loads together; the walk itself is cheap in the usual burst,
// a sequential stream, whose slots were taken from the free list in order.
void PageCacheModel::Rep::PrefetchTails(List list, uint64_t count) const {
  uint32_t slot = slots_[list].prev;
  for (; count > 0 && slot != list; --count, slot = slots_[slot].prev) {
    index_.Prefetch(Mix64(slots_[slot].key));
  }
}

// ---------------------------------------------------------------------------
// Files.

int64_t PageCacheModel::Rep::FindFile(uint64_t file_id) const {
  const auto it = file_ids_.find(file_id);
  return it == file_ids_.end() ? int64_t{-1} : int64_t{it->second};
}

uint32_t PageCacheModel::Rep::FileIndex(uint64_t file_id) {
  const auto [it, inserted] = file_ids_.try_emplace(file_id, 0);
  if (!inserted) return it->second;
  uint32_t index;
  if (!free_files_.empty()) {
    index = free_files_.back();
    free_files_.pop_back();
  } else if (files_.size() < kMaxFiles) {
    index = static_cast<uint32_t>(files_.size());
    files_.emplace_back();
  } else {
    file_ids_.erase(it);
    throw InputError("page cache model: more than " +
                     std::to_string(kMaxFiles) +
                     " files cached at once; call DropFile for deleted files");
  }
  files_[index] = FileState{};
  files_[index].id = file_id;
  it->second = index;
  return index;
}

void PageCacheModel::Rep::CheckRange(uint64_t pos, uint64_t len) {
  if (len == 0 || pos + len < pos || (pos + len - 1) >> kPageShift > kMaxPage) {
    throw InputError("page cache model: byte range at " + std::to_string(pos) +
                     " of length " + std::to_string(len) +
                     " is empty or ends beyond the supported 4 PiB");
  }
}

void PageCacheModel::Rep::SetFileSize(uint64_t file_id, uint64_t bytes) {
  files_[FileIndex(file_id)].last_page =
      bytes == 0 ? 0 : (bytes - 1) >> kPageShift;
}

bool PageCacheModel::Rep::Contains(uint64_t file_id, uint64_t page) const {
  const int64_t file = FindFile(file_id);
  return file >= 0 && page <= kMaxPage &&
         IsResident(static_cast<uint32_t>(file), page);
}

// The buckets a read of [first, last] looks up first: its pages (the first
// few; a longer read has time to fetch the rest) and, for the read-ahead
// decision on a miss, the page before.
void PageCacheModel::Rep::Prefetch(uint64_t file_id, uint64_t first,
                                   uint64_t last) const {
  constexpr uint64_t kMaxPages = 4;
  const int64_t file = FindFile(file_id);
  if (file < 0) return;
  last = std::min({last, first + kMaxPages - 1, kMaxPage});
  for (uint64_t page = first == 0 ? 0 : first - 1; page <= last; ++page) {
    index_.Prefetch(Mix64(PageKey(static_cast<uint32_t>(file), page)));
  }
}

// DropFile scans the slot array when the file has pages or shadows: files
// are deleted rarely (an LSM compaction deletes a few per second at most),
// and a per-file list would cost 8 bytes on every slot.
void PageCacheModel::Rep::DropFile(uint64_t file_id) {
  const int64_t found = FindFile(file_id);
  if (found < 0) return;
  const uint32_t file = static_cast<uint32_t>(found);
  for (uint32_t slot = kListHeads;
       files_[file].entries > 0 && slot < slots_.size(); ++slot) {
    const Slot& s = slots_[slot];
    if (s.list != kFree && FileOfKey(s.key) == file) {
      Unlink(slot);
      FreeSlot(BucketOf(slot));
    }
  }
  file_ids_.erase(file_id);
  free_files_.push_back(file);
}

// ---------------------------------------------------------------------------
// Replacement.
//
// The two lists follow the classic (non-MGLRU) Linux LRU for clean,
// unmapped file pages. A page read for the first time enters the inactive
// list; the read marks it referenced; a second read activates it. So a
// page read once, however recently, is evicted before any page read twice,
// and a scan cannot flush the active list. Pages on the active list are
// never moved by a touch (Linux only sets PG_referenced there), so the
// active list is ordered by activation time.
//
// Reclaim runs when a page must be added to a full cache. It evicts the
// oldest inactive page; Linux gives inactive file pages no second chance
// (folio_check_references reclaims clean unmapped pages even if
// referenced). Memcg limit reclaim frees SWAP_CLUSTER_MAX = 32 pages per
// call and decides at the start of each call whether the active list may
// be aged: if it is too large (inactive_is_low) or if pages refaulted into
// the active list since the previous call ("a new workingset is being
// established"). It then scans both lists by the same fraction of their
// size (get_scan_count shifts both sizes by the same priority), so 32
// evictions come with 32 * active / inactive demotions. Demoted pages go to
// the head of the inactive list and keep PG_referenced (shrink_active_list
// clears only PG_active), so one more touch re-activates them. The model
// evicts one page at a time (the cache stays full, like an LRU of the same
// capacity) but makes the aging decision per round of 32 evictions.
//
// An evicted page leaves a shadow entry holding the eviction clock, which
// counts evictions and activations (nonresident_age). When the page is
// read again, refault distance = clock now - clock at eviction estimates
// how many more pages the cache would have needed to keep it; if that fits
// in the active list, the page would have survived had the active pages
// been inactive, so it is added as active (workingset_refault, file pages,
// no swap: the workingset is the active file list). A shadow older than
// `capacity` evictions has a distance above the active list's size, so at
// most capacity_pages shadows are kept, oldest dropped first; this loses
// no activation. Linux's shadow shrinker may drop shadows earlier.

Bucket* PageCacheModel::Rep::AddPage(uint32_t file, uint64_t page) {
  MakeRoom(capacity_pages_ == 0 ? 0 : capacity_pages_ - 1);
  const uint64_t key = PageKey(file, page);
  Bucket* bucket = index_.Find(Mix64(key));
  List list = kInactive;
  if (bucket != nullptr) {  // a shadow: this is a refault
    const uint32_t slot = bucket->slot;
    const uint64_t distance = (clock_ - slots_[slot].stamp) & kStampMask;
    Unlink(slot);
    if (distance <= active_) {
      list = kActive;
      ++clock_;
      ++refault_activations_;
    }
  } else {
    bucket = NewPage(key);
  }
  PushMru(bucket->slot, list);
  bucket->flags = result_ == nullptr ? 0 : kNew;
  if (result_ != nullptr) {
    added_.push_back(bucket->hash);
    if (page < request_first_ || page >= request_end_) {
      ++result_->readahead_pages;
    }
  }
  return bucket;
}

// mark_page_accessed. With one list a touch is an LRU move to the head.
void PageCacheModel::Rep::MarkAccessed(Bucket* bucket) {
  if (!options_.two_queue) {
    Move(bucket->slot, kInactive);
    return;
  }
  if ((bucket->flags & kReferenced) == 0) {
    bucket->flags |= kReferenced;
  } else if (slots_[bucket->slot].list == kInactive) {
    Move(bucket->slot, kActive);
    bucket->flags &= ~kReferenced;
    ++clock_;  // workingset_activation ages the clock
  }
}

// Evicts until at most `target` pages are resident.
void PageCacheModel::Rep::MakeRoom(uint64_t target) {
  while (resident() > target) ReclaimOne();
}

void PageCacheModel::Rep::ReclaimOne() {
  if (options_.two_queue) {
    if (round_evictions_ == 0) StartReclaimRound();
    round_evictions_ = (round_evictions_ + 1) % kReclaimBatch;
    if (inactive_ == 0) Demote(1);
  }
  Evict();
}

void PageCacheModel::Rep::StartReclaimRound() {
  const bool refaulted = refault_activations_ != refaults_at_round_start_;
  refaults_at_round_start_ = refault_activations_;
  if (!refaulted && !InactiveIsLow()) return;
  const uint64_t scan =
      (kReclaimBatch * active_ + std::max<uint64_t>(inactive_, 1) - 1) /
      std::max<uint64_t>(inactive_, 1);
  Demote(std::min(scan, active_));
}

// inactive_is_low: the inactive list may be smaller than the active one by
// int_sqrt(10 * GiB), so a large cache protects a larger share of active
// pages (1 GiB: 3, 10 GiB: 10, 100 GiB: 31), a small one keeps them even.
bool PageCacheModel::Rep::InactiveIsLow() const {
  const uint64_t gib = static_cast<uint64_t>(resident() * options_.balance_scale) >>
                       (30 - kPageShift);
  const uint64_t ratio = gib == 0 ? 1 : IntSqrt(10 * gib);
  return inactive_ * ratio < active_;
}

void PageCacheModel::Rep::Demote(uint64_t pages) {
  for (; pages > 0 && active_ > 0; --pages) {
    Move(slots_[kActive].prev, kInactive);
  }
}

// Evicts the oldest inactive page.
void PageCacheModel::Rep::Evict() {
  const uint32_t slot = slots_[kInactive].prev;
  Bucket* bucket = BucketOf(slot);
  Unlink(slot);
  PrefetchTail(kInactive);
  if (!keeps_shadows()) {
    FreeSlot(bucket);
  } else {
    slots_[slot].stamp = clock_ & kStampMask;
    PushMru(slot, kShadows);
    bucket->flags = kShadow;
    if (shadows_ > shadow_limit()) DropOldestShadow();
  }
  ++clock_;
}

void PageCacheModel::Rep::DropOldestShadow() {
  const uint32_t oldest = slots_[kShadows].prev;
  Bucket* bucket = BucketOf(oldest);
  Unlink(oldest);
  PrefetchTail(kShadows);
  FreeSlot(bucket);
}

void PageCacheModel::Rep::SetCapacity(uint64_t bytes) {
  capacity_pages_ = bytes >> kPageShift;
  MakeRoom(capacity_pages_);
  while (shadows_ > shadow_limit()) DropOldestShadow();
}

void PageCacheModel::Rep::InsertPages(uint64_t file_id, uint64_t first,
                                      uint64_t last) {
  CheckRange(first << kPageShift, (last - first + 1) << kPageShift);
  const uint32_t file = FileIndex(file_id);
  for (uint64_t page = first; page <= last; ++page) {
    if (!IsResident(file, page)) AddPage(file, page);
  }
  MakeRoom(capacity_pages_);
}

void PageCacheModel::Rep::DropPages(uint64_t file_id, uint64_t first,
                                    uint64_t last) {
  const int64_t file = FindFile(file_id);
  if (file < 0) return;
  // Invalidation (POSIX_FADV_DONTNEED), not reclaim: no shadow is left.
  for (uint64_t page = first; page <= last && page <= kMaxPage; ++page) {
    Bucket* bucket = Find(static_cast<uint32_t>(file), page);
    if (IsResident(bucket)) {
      Unlink(bucket->slot);
      FreeSlot(bucket);
    }
  }
}

// ---------------------------------------------------------------------------
// The read path (filemap_read) and read-ahead.
//
// A read walks its pages in order. A missing page starts a synchronous
// read-ahead for the rest of the request; a page carrying the read-ahead
// marker starts an asynchronous one; then the page is marked accessed,
// except the first page when the previous read of the file ended in it
// (so a run of small reads does not activate a page by itself; with one
// list every page is moved, which keeps that mode a plain LRU). The kernel
// reads batches of pages and marks them after the async read-ahead their
// last page triggers; the model marks each page as it goes, which changes
// only the order of pages activated in the same read.
//
// Read-ahead (Linux 6.18 mm/readahead.c, order-0 folios) keeps per file
// the last window {start, size, async_size}; the page at start + size -
// async_size carries the marker. A sync read-ahead at `index` for
// `request` pages:
//  - at offset 0, for a request above the maximum, or right after the
//    previous read (index - prev_index <= 1): a new stream, initial window
//    InitialWindow(request) from index, async part = window - request;
//  - otherwise, if the pages before index are resident for more than the
//    request (a stream the state lost): a window of that run + request,
//    doubled if the run reaches the file start, async part 1;
//  - otherwise a random read: only the requested pages, no marker.
// An async read-ahead on reaching the marker of the current window starts
// the next window right after it, NextWindow(size) long, all of it async,
// so its first page carries the next marker; a marker of an older window
// (interleaved streams) sizes the next window from the resident run after
// it. Async windows end on a 4-page boundary (the kernel aligns them to
// the folio order it would use next, 2, even for order-0 mappings).
// Pages already resident are skipped and never carry the marker.

PageAccessResult PageCacheModel::Rep::Read(uint64_t file_id, uint64_t pos,
                                           uint64_t len) {
  CheckRange(pos, len);
  const uint32_t file = FileIndex(file_id);
  PageAccessResult result;
  result_ = &result;
  request_first_ = pos >> kPageShift;
  request_end_ = (pos + len + kPageSize - 1) >> kPageShift;
  const int64_t prev_pos = files_[file].prev_pos;
  const bool first_page_seen = ((prev_pos - 1) >> kPageShift) ==
                               static_cast<int64_t>(request_first_);
  for (uint64_t index = request_first_; index < request_end_; ++index) {
    const uint64_t request = request_end_ - index;
    Bucket* bucket = Find(file, index);
    if (!IsResident(bucket)) {
      SyncReadahead(file, index, request);
      bucket = Find(file, index);
      // Only a cache smaller than the window evicts what it just read.
      if (!IsResident(bucket)) bucket = AddPage(file, index);
    }
    if (bucket->flags & kNew) {
      ++result.missed_pages;
    } else {
      ++result.hit_pages;
    }
    if (bucket->flags & kReadahead) {
      AsyncReadahead(file, bucket, index, request);
      bucket = Find(file, index);
      if (!IsResident(bucket)) bucket = AddPage(file, index);
    }
    if (index != request_first_ || !first_page_seen || !options_.two_queue) {
      MarkAccessed(bucket);
    }
  }
  files_[file].prev_pos = static_cast<int64_t>(pos + len);
  MakeRoom(capacity_pages_);
  // The next read finds this one's pages resident: hits, not new.
  for (const uint64_t hash : added_) {
    Bucket* bucket = index_.Find(hash);
    if (bucket != nullptr) bucket->flags &= ~kNew;
  }
  added_.clear();
  result_ = nullptr;
  return result;
}

void PageCacheModel::Rep::SyncReadahead(uint32_t file, uint64_t index,
                                        uint64_t request) {
  const uint64_t max = max_window_;
  if (max == 0) {  // read-ahead off: force_page_cache_ra of the request
    ReadRange(file, index, request, 0);
    return;
  }
  FileState& f = files_[file];
  const uint64_t prev_index = static_cast<uint64_t>(f.prev_pos) >> kPageShift;
  if (index == 0 || request > max || index - prev_index <= 1) {
    f.ra_start = index;
    f.ra_size = InitialWindow(request, max);
    f.ra_async_size = f.ra_size > request ? f.ra_size - request : f.ra_size / 2;
  } else {
    const uint64_t miss = PrevMiss(file, index - 1, max);
    uint64_t run = index - miss - 1;  // wraps to `index` if miss is "none"
    if (run <= request) {
      ReadRange(file, index, request, 0);
      return;
    }
    if (miss == UINT64_MAX) run *= 2;
    f.ra_start = index;
    f.ra_size = std::min(run + request, max);
    f.ra_async_size = 1;
  }
  ReadRange(file, f.ra_start, f.ra_size, f.ra_async_size);
}

void PageCacheModel::Rep::AsyncReadahead(uint32_t file, Bucket* bucket,
                                         uint64_t index, uint64_t request) {
  bucket->flags &= ~kReadahead;
  const uint64_t max = max_window_;
  FileState& f = files_[file];
  if (index == f.ra_start + f.ra_size - f.ra_async_size) {
    f.ra_start += f.ra_size;
    f.ra_size = std::max(f.ra_size, NextWindow(f.ra_size, max));
  } else {
    const uint64_t start = NextMiss(file, index + 1, max);
    if (start == 0 || start - index > max) return;
    f.ra_start = start;
    f.ra_size = NextWindow(start - index + request, max);
  }
  const uint64_t align = uint64_t{1} << std::min(2, std::countr_zero(max));
  const uint64_t end = f.ra_start + f.ra_size;
  const uint64_t aligned_end = end & ~(align - 1);
  if (aligned_end > f.ra_start) f.ra_size -= end - aligned_end;
  f.ra_async_size = f.ra_size;
  ReadRange(file, f.ra_start, f.ra_size, f.ra_async_size);
}

// do_page_cache_ra: reads the missing pages of [start, start + count),
// stopping at the end of the file, and marks the page `async_size` from
// the end (none if async_size is 0).
void PageCacheModel::Rep::ReadRange(uint32_t file, uint64_t start,
                                    uint64_t count, uint64_t async_size) {
  const uint64_t last_page = std::min(files_[file].last_page, kMaxPage);
  if (start > last_page) return;
  count = std::min(count, last_page - start + 1);
  constexpr uint64_t kMaxBurst = 32;
  const uint64_t burst = std::min(count, kMaxBurst);
  if (burst > 1 && resident() + burst > capacity_pages_) {
    PrefetchTails(kInactive, burst);
    if (keeps_shadows()) PrefetchTails(kShadows, burst);
  }
  const uint64_t marker = async_size <= count ? count - async_size : UINT64_MAX;
  for (uint64_t i = 0; i < count; ++i) {
    if (IsResident(file, start + i)) continue;
    if (!InSample(file, start + i)) continue;
    Bucket* bucket = AddPage(file, start + i);
    if (i == marker) bucket->flags |= kReadahead;
  }
}

// Whether a page overlaps a sampled group (always, without sampling). A
// group spans at least a page when G * block size >= 4 KiB, so a page
// overlaps at most two groups.
bool PageCacheModel::Rep::InSample(uint32_t file, uint64_t page) const {
  const Sampler* sample = options_.sample;
  if (sample == nullptr) return true;
  const uint64_t first = (page << kPageShift) / sample->group_bytes();
  const uint64_t last = ((page << kPageShift) + kPageSize - 1) / sample->group_bytes();
  for (uint64_t group = first; group <= last; ++group) {
    if (sample->SampledGroup(files_[file].id, group)) return true;
  }
  return false;
}

// page_cache_next_miss: the first non-resident page in [index, index +
// max_scan), 0 on wrap-around, or index + max_scan.
uint64_t PageCacheModel::Rep::NextMiss(uint32_t file, uint64_t index,
                                       uint64_t max_scan) const {
  for (uint64_t i = 0; i < max_scan; ++i) {
    const uint64_t page = index + i;
    if (page == 0 && index != 0) return 0;
    if (page > kMaxPage || !IsResident(file, page)) return page;
  }
  return index + max_scan;
}

// page_cache_prev_miss: the first non-resident page scanning down from
// index for max_scan pages, UINT64_MAX past page 0, or index - max_scan.
uint64_t PageCacheModel::Rep::PrevMiss(uint32_t file, uint64_t index,
                                       uint64_t max_scan) const {
  for (uint64_t i = 0; i < max_scan; ++i) {
    const uint64_t page = index - i;
    if (page == UINT64_MAX || !IsResident(file, page)) return page;
  }
  return index - max_scan;
}

// ---------------------------------------------------------------------------
// PageCacheModel.

PageCacheModel::PageCacheModel(const PageCacheOptions& options)
    : rep_(std::make_unique<Rep>(options)) {}

PageCacheModel::~PageCacheModel() = default;

PageAccessResult PageCacheModel::AccessPages(uint64_t file_id,
                                             uint64_t first_page,
                                             uint32_t count) {
  if (first_page > kMaxPage) {
    throw InputError("page " + std::to_string(first_page) +
                     " lies beyond the page model's 4 PiB of file offsets");
  }
  return rep_->Read(file_id, first_page << kPageShift,
                    uint64_t{count} << kPageShift);
}

bool PageCacheModel::Contains(uint64_t file_id, uint64_t page) const {
  return rep_->Contains(file_id, page);
}

void PageCacheModel::Prefetch(uint64_t file_id, uint64_t first_page) const {
  rep_->Prefetch(file_id, first_page, first_page);
}

void PageCacheModel::Prefetch(const Block& block) const {
  rep_->Prefetch(block.file_id, block.first_page(), block.last_page());
}

void PageCacheModel::SetFileSize(uint64_t file_id, uint64_t bytes) {
  rep_->SetFileSize(file_id, bytes);
}

bool PageCacheModel::Read(const Block& block) {
  return rep_->Read(block.file_id, block.offset, block.disk_size)
             .missed_pages == 0;
}

void PageCacheModel::Insert(const Block& block) {
  rep_->InsertPages(block.file_id, block.first_page(), block.last_page());
}

void PageCacheModel::Drop(const Block& block) {
  rep_->DropPages(block.file_id, block.first_page(), block.last_page());
}

void PageCacheModel::DropFile(uint64_t file_id) { rep_->DropFile(file_id); }

void PageCacheModel::SetCapacity(uint64_t bytes) { rep_->SetCapacity(bytes); }

uint64_t PageCacheModel::capacity() const {
  return rep_->capacity_pages() << kPageShift;
}

uint64_t PageCacheModel::used_bytes() const {
  return rep_->resident() << kPageShift;
}

uint64_t PageCacheModel::active_pages() const { return rep_->active(); }
uint64_t PageCacheModel::inactive_pages() const { return rep_->inactive(); }
uint64_t PageCacheModel::shadow_entries() const { return rep_->shadows(); }
size_t PageCacheModel::MemoryUsage() const { return rep_->MemoryUsage(); }

const PageCacheOptions& PageCacheModel::options() const {
  return rep_->options();
}

}  // namespace symbiosis
