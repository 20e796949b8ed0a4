#include "model/page_cache_model.h"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {
namespace {

// A page is named by one 64-bit key, (file index << 40) | page, so the
// index can identify it by Mix64(key), a bijection. 40 bits of page number
// cover files up to 4 PiB; 22 bits of file index, 4 M live files. The top
// two bits are free: a slot keeps its list there.
constexpr int kPageBits = 40;
constexpr int kFileBits = 22;
constexpr int kKeyBits = kPageBits + kFileBits;
constexpr uint64_t kMaxPage = (uint64_t{1} << kPageBits) - 1;
constexpr uint32_t kMaxFiles = uint32_t{1} << kFileBits;
constexpr uint64_t kKeyMask = (uint64_t{1} << kKeyBits) - 1;
constexpr uint64_t kNoKey = UINT64_MAX;  // above every key

inline uint64_t PageKey(uint32_t file, uint64_t page) {
  return (uint64_t{file} << kPageBits) | page;
}
inline uint32_t FileOfKey(uint64_t key) {
  return static_cast<uint32_t>(key >> kPageBits);
}

// The lists of resident pages live in the slot array: slots 0 and 1 are
// the circular lists' heads, so linking and unlinking never branch on an
// empty list. head.next is the most recent entry (MRU), head.prev the
// oldest.
enum List : uint8_t { kInactive = 0, kActive = 1, kFree = 2 };
constexpr uint32_t kListHeads = 2;
constexpr uint32_t kNoSlot = UINT32_MAX;

// Page flags, kept in the index (below). The first two are the kernel's.
constexpr uint8_t kReferenced = 1;  // PG_referenced
constexpr uint8_t kReadahead = 2;   // PG_readahead: touching it starts async RA
constexpr uint8_t kNew = 4;         // requested, added by the read in progress
constexpr uint8_t kShadow = 8;      // evicted: the bucket is a shadow entry

// GCC deems __builtin_prefetch free of side effects, so it treats a
// function that only prefetches as pure and deletes calls to it (the
// public Prefetch included). The empty volatile asm is a side effect that
// keeps the prefetch; it emits no instruction.
inline void PrefetchLine(const void* address) {
  __builtin_prefetch(address);
  asm volatile("" : : "r"(address));
}

// A resident page's slot holds what the lists need: the links, and for
// the page's way back to its bucket, the key. 16 bytes.
struct Slot {
  uint64_t tag;   // PageKey(file, page) | list << kKeyBits
  uint32_t prev;
  uint32_t next;  // also the free list's link

  uint64_t key() const { return tag & kKeyMask; }
  List list() const { return static_cast<List>(tag >> kKeyBits); }
};
static_assert(sizeof(Slot) == 16, "a slot should stay 16 bytes");

// A shadow entry in the ring (see "Replacement" below). 16 bytes.
struct Shadow {
  uint64_t key;    // PageKey(file, page); kNoKey once the shadow is gone
  uint64_t stamp;  // the eviction clock at the page's eviction
};

// Vector growth for the arrays whose final size the capacity bounds:
// doubling, but never past `limit` unless more is needed, so a full model
// holds no doubling slack.
size_t Grown(size_t size, size_t limit) {
  return std::max(size + 1, std::min(2 * size, limit));
}

// PageIndex: open addressing from Mix64(key) to the page's slot (a shadow:
// its ring position), linear probing in Robin Hood order, deletion by
// backward shift (no tombstones). Each bucket keeps its probe length, so
// a lookup of an absent page stops at the first entry nearer its home than
// the page would be, and deletion shifts without rehashing. Any bucket
// count works: the home bucket is the hash's high bits scaled to n,
// (hash * n) >> 64, and probes wrap at n. So the index grows to what the
// capacity needs, not to the next power of two.
//
// Load: up to 1/2, or 3/4 in a compact index. At 3/4 an insert probes
// about 8 buckets instead of 2.5, and the model runs 20-40% slower; a
// sampled model (the online ghost), whose memory is charged against the
// cache it stands for, takes that for a quarter less memory per page.
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
    uint64_t hash;   // Mix64(key)
    uint32_t slot;   // the slot; a shadow's ring position
    uint16_t flags;
    uint16_t probe;  // 1 + distance from the home bucket; 0: unused
  };
  static_assert(sizeof(Bucket) == 16, "four buckets per cache line");

  // `expected`: see SetExpected.
  PageIndex(size_t expected, bool compact)
      : expected_(expected), compact_(compact) {
    Rehash(std::min(BucketsFor(expected), kInitialBuckets));
  }

  // The page's bucket, or nullptr. Valid until the next insert or Erase.
  Bucket* Find(uint64_t hash) {
    size_t i = Home(hash);
    for (uint32_t probe = 1;; ++probe, i = Next(i)) {
      Bucket& bucket = buckets_[i];
      if (bucket.probe < probe) return nullptr;  // unused, or nearer home
      if (bucket.hash == hash) return &bucket;
    }
  }
  const Bucket* Find(uint64_t hash) const {
    return const_cast<PageIndex*>(this)->Find(hash);
  }

  // The bucket of `hash`; if absent, a new one (slot kNoSlot, flags 0),
  // placed where the search for it ended, and *inserted is set.
  Bucket* FindOrInsert(uint64_t hash, bool* inserted) {
    for (;;) {
      size_t i = Home(hash);
      uint32_t probe = 1;
      for (;; ++probe, i = Next(i)) {
        Bucket& bucket = buckets_[i];
        if (bucket.probe < probe) break;
        if (bucket.hash == hash) {
          *inserted = false;
          return &bucket;
        }
      }
      if (size_ + 1 <= max_size_) {
        *inserted = true;
        ++size_;
        return Place(Bucket{hash, kNoSlot, 0, static_cast<uint16_t>(probe)}, i);
      }
      const size_t full = BucketsFor(expected_);
      const size_t n = full > n_ ? std::min(2 * n_, full) : 2 * n_;
      Rehash(std::max(n, BucketsFor(size_ + 1)));
    }
  }

  // REQUIRES: `bucket` is one of this index's buckets in use.
  void Erase(Bucket* bucket) {
    // Backward shift: the rest of the run moves one bucket nearer home,
    // up to an unused bucket or an entry in its home bucket.
    size_t hole = static_cast<size_t>(bucket - buckets_.data());
    for (size_t i = Next(hole); buckets_[i].probe > 1; i = Next(i)) {
      buckets_[hole] = buckets_[i];
      --buckets_[hole].probe;
      hole = i;
    }
    buckets_[hole].probe = 0;
    --size_;
  }

  // The most entries the model can hold at its capacity: growth stops
  // there unless more are inserted.
  void SetExpected(size_t expected) { expected_ = expected; }

  void Prefetch(uint64_t hash) const {
    PrefetchLine(&buckets_[Home(hash)]);
  }

  size_t MemoryUsage() const { return buckets_.capacity() * sizeof(Bucket); }

 private:
  static constexpr size_t kInitialBuckets = 1024;
  static constexpr uint16_t kMaxProbe = UINT16_MAX;

  // The fewest buckets that hold `entries` within the load limit.
  size_t BucketsFor(size_t entries) const {
    return std::max<size_t>(compact_ ? (entries * 4 + 2) / 3 : 2 * entries, 8);
  }
  size_t MaxSize(size_t n) const {
    return compact_ ? n / 4 * 3 + n % 4 * 3 / 4 : n / 2;  // 3n/4 rounded down
  }

  size_t Home(uint64_t hash) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(hash) * n_) >> 64);
  }
  size_t Next(size_t i) const { return i + 1 == n_ ? 0 : i + 1; }

  // Robin Hood: an entry takes the bucket of one nearer its home, which
  // moves on. `entry.probe` is its probe length at bucket `i`. Returns
  // where it went.
  Bucket* Place(Bucket entry, size_t i) {
    const uint64_t hash = entry.hash;
    Bucket* placed = nullptr;
    for (;; i = Next(i), ++entry.probe) {
      if (entry.probe == kMaxProbe) {  // a run of 64 Ki: never seen
        Rehash(2 * n_);
        entry.probe = 1;
        Place(entry, Home(entry.hash));
        return Find(hash);
      }
      Bucket& bucket = buckets_[i];
      if (bucket.probe == 0) {
        bucket = entry;
        return placed != nullptr ? placed : &bucket;
      }
      if (bucket.probe < entry.probe) {
        std::swap(bucket, entry);
        if (placed == nullptr) placed = &bucket;
      }
    }
  }

  void Rehash(size_t n) {
    std::vector<Bucket> old;
    old.swap(buckets_);
    n_ = n;
    max_size_ = MaxSize(n);
    buckets_.reserve(n);  // exactly n: no slack
    buckets_.assign(n, Bucket{0, kNoSlot, 0, 0});
    for (Bucket bucket : old) {
      if (bucket.probe != 0) {
        bucket.probe = 1;
        Place(bucket, Home(bucket.hash));
      }
    }
  }

  std::vector<Bucket> buckets_;
  size_t n_ = 0;  // the bucket count
  size_t max_size_ = 0;
  size_t size_ = 0;
  size_t expected_;
  const bool compact_;
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

// Read-ahead windows are at most kMaxWindow pages, so that a window's
// sizes fit in 24 bits of FileState.
constexpr int kWindowBits = 24;
constexpr uint64_t kMaxWindow = (uint64_t{1} << kWindowBits) - 1;

// struct file_ra_state, plus what the model needs per file. One per file
// id: engines open one file description per table file and share it, and
// Linux keeps this state per open file description. 40 bytes.
struct FileState {
  uint64_t id = 0;
  int64_t prev_pos = -1;  // byte after the previous read; -1: none
  // The last read-ahead window; the marker is at ra_start + ra_size -
  // ra_async_size. A window starts at most a window past the last page,
  // so ra_start < 2^41 and needs its own word.
  uint64_t ra_start = 0;
  // (size - 1) >> 12, or kMaxPage if unknown or larger: read-ahead stops
  // there (and at kMaxPage) alike.
  uint64_t last_page : kPageBits = kMaxPage;
  uint64_t ra_size : kWindowBits = 0;
  uint64_t entries : 64 - kWindowBits = 0;  // resident pages + shadows
  uint64_t ra_async_size : kWindowBits = 0;
};
static_assert(sizeof(FileState) == 40, "a file's state should stay 40 bytes");

// FileTable: file id -> index into files_. Open addressing over 4-byte
// indices (the id is in the FileState, which the caller reads next
// anyway), linear probing, backward-shift deletion, doubling at 3/4 load.
class FileTable {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  FileTable() { Rehash(kMinBits, {}); }

  uint32_t Find(uint64_t id, const std::vector<FileState>& files) const {
    for (size_t i = Home(id);; i = (i + 1) & mask_) {
      const uint32_t index = table_[i];
      if (index == kNone || files[index].id == id) return index;
    }
  }

  // REQUIRES: files[index].id is absent.
  void Insert(uint32_t index, const std::vector<FileState>& files) {
    if (size_ + 1 > (mask_ + 1) / 4 * 3) Rehash(bits_ + 1, files);
    ++size_;
    Place(index, files);
  }

  // REQUIRES: `id` is present.
  void Erase(uint64_t id, const std::vector<FileState>& files) {
    size_t hole = Home(id);
    while (files[table_[hole]].id != id) hole = (hole + 1) & mask_;
    for (size_t i = (hole + 1) & mask_; table_[i] != kNone; i = (i + 1) & mask_) {
      const size_t home = Home(files[table_[i]].id);
      if (((i - home) & mask_) >= ((i - hole) & mask_)) {
        table_[hole] = table_[i];
        hole = i;
      }
    }
    table_[hole] = kNone;
    --size_;
  }

  size_t MemoryUsage() const { return table_.capacity() * sizeof(uint32_t); }

 private:
  static constexpr int kMinBits = 4;

  // Fibonacci hashing: one multiply spreads any distinct ids well enough.
  size_t Home(uint64_t id) const {
    return (id * 0x9e3779b97f4a7c15ULL) >> (64 - bits_);
  }

  void Place(uint32_t index, const std::vector<FileState>& files) {
    size_t i = Home(files[index].id);
    while (table_[i] != kNone) i = (i + 1) & mask_;
    table_[i] = index;
  }

  void Rehash(int bits, const std::vector<FileState>& files) {
    std::vector<uint32_t> old;
    old.swap(table_);
    bits_ = bits;
    mask_ = (size_t{1} << bits) - 1;
    table_.assign(mask_ + 1, kNone);
    for (const uint32_t index : old) {
      if (index != kNone) Place(index, files);
    }
  }

  std::vector<uint32_t> table_;
  int bits_ = 0;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace

// Invariants:
//  - Every resident page has exactly one slot, on the list its tag names,
//    and one bucket in index_, not kShadow, naming that slot; free slots
//    are on the free list only. inactive_ and active_ count the two lists.
//  - Every shadow has exactly one bucket, flagged kShadow, whose `slot` is
//    its position in ring_. The held_ ring positions from oldest_pos_ on
//    (wrapping at ring_size_) hold the shadows in eviction order, each
//    live or dead (key kNoKey: refaulted or dropped since); all other
//    positions are dead. shadows_ counts the live ones. With shadows
//    kept, held_ <= shadow_limit() <= ring_size_ between public calls.
//  - files_[f].entries counts file f's resident pages and shadows.
//  - kNew is set only while Read runs, on requested pages it added and
//    has not reached yet.
//  - inactive_ + active_ <= capacity_pages_ between public calls.
//  - Shadows are kept only with two_queue and refault_activation.
//  - With two_queue off every resident page is on the inactive list, which
//    is then a plain LRU list.
class PageCacheModel::Rep {
 public:
  explicit Rep(const PageCacheOptions& options)
      : options_(options),
        capacity_pages_(options.capacity_bytes >> kPageShift),
        max_window_(MaxWindow(options)),
        index_(ExpectedEntries(), options.sample != nullptr) {
    slots_.reserve(kListHeads);
    for (uint32_t head = 0; head < kListHeads; ++head) {
      slots_.push_back(Slot{uint64_t{head} << kKeyBits, head, head});
    }
    if (keeps_shadows()) ring_size_ = shadow_limit();
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
    return slots_.capacity() * sizeof(Slot) + index_.MemoryUsage() +
           ring_.capacity() * sizeof(Shadow) +
           files_.capacity() * sizeof(FileState) + file_table_.MemoryUsage() +
           free_files_.capacity() * sizeof(uint32_t);
  }

 private:
  static uint64_t MaxWindow(const PageCacheOptions& options);
  // The most pages the index holds at this capacity: the resident pages
  // (one even at capacity 0, while it is read) and the shadows.
  size_t ExpectedEntries() const {
    return std::max<uint64_t>(capacity_pages_, 1) +
           (keeps_shadows() ? shadow_limit() : 0);
  }

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
    return index_.Find(Mix64(slots_[slot].key()));
  }
  uint32_t NewSlot();
  void FreeSlot(uint32_t slot);
  void ErasePage(Bucket* bucket);
  void Unlink(uint32_t slot);
  void PushMru(uint32_t slot, List list);
  void Move(uint32_t slot, List list);
  void PrefetchTail() const;
  void PrefetchTails(uint64_t count) const;
  void PrefetchExpiring(uint64_t count) const;
  uint64_t& ListCount(List list) {
    return list == kInactive ? inactive_ : active_;
  }

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
  void DropShadow(size_t pos);
  void ResizeRing(uint64_t size);
  size_t NextPos(size_t pos) const { return pos + 1 == ring_size_ ? 0 : pos + 1; }
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

  // The shadow ring; filled lazily up to ring_size_ entries.
  std::vector<Shadow> ring_;
  size_t ring_size_ = 0;
  size_t oldest_pos_ = 0;  // the oldest held position
  size_t next_pos_ = 0;    // where the next shadow goes
  uint64_t held_ = 0;      // positions from oldest_pos_ to next_pos_
  uint64_t shadows_ = 0;   // live entries among them

  FileTable file_table_;
  std::vector<FileState> files_;
  std::vector<uint32_t> free_files_;

  // Workingset state: the eviction clock (lruvec->nonresident_age) and
  // the reclaim round (see the comment above AddPage).
  uint64_t clock_ = 0;
  uint64_t refault_activations_ = 0;
  uint64_t refaults_at_round_start_ = 0;
  uint64_t round_evictions_ = 0;

  // While Read runs: its result and requested pages [first, end), so that
  // AddPage can count the pages read ahead and mark the requested ones it
  // adds kNew (misses, not hits, when the read reaches them).
  PageAccessResult* result_ = nullptr;
  uint64_t request_first_ = 0;
  uint64_t request_end_ = 0;
};

uint64_t PageCacheModel::Rep::MaxWindow(const PageCacheOptions& options) {
  if (!options.readahead) return 0;
  if (options.max_readahead_pages > kMaxWindow) {
    throw InputError("page cache model: max_readahead_pages " +
                     std::to_string(options.max_readahead_pages) +
                     " exceeds the model's maximum of " +
                     std::to_string(kMaxWindow) +
                     " pages (64 GiB); the Linux default is 32");
  }
  return options.max_readahead_pages;
}

// ---------------------------------------------------------------------------
// Slots, lists and the index.

uint32_t PageCacheModel::Rep::NewSlot() {
  uint32_t slot = free_slots_;
  if (slot != kNoSlot) {
    free_slots_ = slots_[slot].next;
    return slot;
  }
  if (slots_.size() == slots_.capacity()) {
    slots_.reserve(Grown(slots_.size(),
                         kListHeads + std::max<uint64_t>(capacity_pages_, 1)));
  }
  slots_.push_back(Slot{});
  return static_cast<uint32_t>(slots_.size() - 1);
}

// REQUIRES: the slot is unlinked.
void PageCacheModel::Rep::FreeSlot(uint32_t slot) {
  Slot& s = slots_[slot];
  s.tag = uint64_t{kFree} << kKeyBits;
  s.next = free_slots_;
  free_slots_ = slot;
}

// Forgets an unlinked resident page: its bucket and its slot.
void PageCacheModel::Rep::ErasePage(Bucket* bucket) {
  const uint32_t slot = bucket->slot;
  --files_[FileOfKey(slots_[slot].key())].entries;
  index_.Erase(bucket);
  FreeSlot(slot);
}

void PageCacheModel::Rep::Unlink(uint32_t slot) {
  Slot& s = slots_[slot];
  slots_[s.prev].next = s.next;
  slots_[s.next].prev = s.prev;
  --ListCount(s.list());
}

void PageCacheModel::Rep::PushMru(uint32_t slot, List list) {
  Slot& s = slots_[slot];
  Slot& head = slots_[list];
  s.tag = s.key() | uint64_t{list} << kKeyBits;
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

// Reclaim walks the inactive list from its tail, so the page it takes next
// is known one step ahead: after taking a tail, the new tail's slot is in
// the CPU cache (unlinking wrote it), and prefetching its bucket and its
// predecessor's slot means the next step finds both there instead of
// waiting on memory for each in turn.
void PageCacheModel::Rep::PrefetchTail() const {
  const Slot& tail = slots_[slots_[kInactive].prev];
  PrefetchLine(&slots_[tail.prev]);
  index_.Prefetch(Mix64(tail.key()));
}

// A read-ahead window adds many pages at once, each evicting the inactive
// tail and maybe dropping the oldest shadow; one step of look-ahead does
// not hide that burst. Walking the next `count` tails first issues all
// their bucket loads together; the walk itself is cheap in the usual burst,
// a sequential stream, whose slots were taken from the free list in order.
void PageCacheModel::Rep::PrefetchTails(uint64_t count) const {
  uint32_t slot = slots_[kInactive].prev;
  for (; count > 0 && slot != kInactive; --count, slot = slots_[slot].prev) {
    index_.Prefetch(Mix64(slots_[slot].key()));
  }
}

// The same for the shadows the next `count` evictions may drop.
void PageCacheModel::Rep::PrefetchExpiring(uint64_t count) const {
  size_t pos = oldest_pos_;
  for (count = std::min(count, held_); count > 0; --count, pos = NextPos(pos)) {
    if (ring_[pos].key != kNoKey) index_.Prefetch(Mix64(ring_[pos].key));
  }
}

// ---------------------------------------------------------------------------
// Files.

int64_t PageCacheModel::Rep::FindFile(uint64_t file_id) const {
  const uint32_t index = file_table_.Find(file_id, files_);
  return index == FileTable::kNone ? int64_t{-1} : int64_t{index};
}

uint32_t PageCacheModel::Rep::FileIndex(uint64_t file_id) {
  uint32_t index = file_table_.Find(file_id, files_);
  if (index != FileTable::kNone) return index;
  if (!free_files_.empty()) {
    index = free_files_.back();
    free_files_.pop_back();
  } else if (files_.size() < kMaxFiles) {
    // Growing by half, not doubling: the model's smallest use, the online
    // ghost, holds about as many files as kilobytes of pages.
    if (files_.size() == files_.capacity()) {
      files_.reserve(files_.size() + files_.size() / 2 + 8);
    }
    index = static_cast<uint32_t>(files_.size());
    files_.emplace_back();
  } else {
    throw InputError("page cache model: more than " +
                     std::to_string(kMaxFiles) +
                     " files cached at once; call DropFile for deleted files");
  }
  files_[index] = FileState{};
  files_[index].id = file_id;
  file_table_.Insert(index, files_);
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
      bytes == 0 ? 0 : std::min((bytes - 1) >> kPageShift, kMaxPage);
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

// DropFile scans the slot array and the shadow ring while the file has
// pages or shadows left: files are deleted rarely (an LSM compaction
// deletes a few per second at most), and a per-file list would cost 8
// bytes on every slot and shadow.
void PageCacheModel::Rep::DropFile(uint64_t file_id) {
  const int64_t found = FindFile(file_id);
  if (found < 0) return;
  const uint32_t file = static_cast<uint32_t>(found);
  const FileState& f = files_[file];
  for (uint32_t slot = kListHeads; f.entries > 0 && slot < slots_.size();
       ++slot) {
    const Slot& s = slots_[slot];
    if (s.list() != kFree && FileOfKey(s.key()) == file) {
      Bucket* bucket = BucketOf(slot);
      Unlink(slot);
      ErasePage(bucket);
    }
  }
  size_t pos = oldest_pos_;
  for (uint64_t i = 0; f.entries > 0 && i < held_; ++i, pos = NextPos(pos)) {
    const uint64_t key = ring_[pos].key;
    if (key != kNoKey && FileOfKey(key) == file) DropShadow(pos);
  }
  file_table_.Erase(file_id, files_);
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
// no swap: the workingset is the active file list). Linux's shadow
// shrinker may drop shadows earlier than the model does.
//
// Which shadows can still activate: only an activation grows the active
// list, and each one also advances the clock, so distance - active never
// decreases. A shadow followed by `capacity` evictions has distance >
// capacity >= active once reclaim is done, so it can never activate again;
// and a refault that does not activate has no effect but a new inactive
// page's. So the model keeps the shadows of the last capacity_pages
// evictions only (even when some of those refaulted), in a ring in
// eviction order: each eviction takes the oldest position. A shadow needs
// no links and its page no slot, and its bucket names its ring position,
// so a refault marks its entry dead in place.

Bucket* PageCacheModel::Rep::AddPage(uint32_t file, uint64_t page) {
  MakeRoom(capacity_pages_ == 0 ? 0 : capacity_pages_ - 1);
  const uint64_t key = PageKey(file, page);
  bool inserted;
  Bucket* bucket = index_.FindOrInsert(Mix64(key), &inserted);
  List list = kInactive;
  if (!inserted) {  // a shadow: this is a refault
    Shadow& shadow = ring_[bucket->slot];
    const uint64_t distance = clock_ - shadow.stamp;
    shadow.key = kNoKey;
    --shadows_;
    if (distance <= active_) {
      list = kActive;
      ++clock_;
      ++refault_activations_;
    }
  } else {
    ++files_[file].entries;
  }
  bucket->slot = NewSlot();
  slots_[bucket->slot].tag = key;
  PushMru(bucket->slot, list);
  bucket->flags = 0;
  if (result_ != nullptr) {
    if (page < request_first_ || page >= request_end_) {
      ++result_->readahead_pages;
    } else {
      bucket->flags = kNew;
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
  } else if (slots_[bucket->slot].list() == kInactive) {
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

// Evicts the oldest inactive page; its bucket becomes its shadow entry.
void PageCacheModel::Rep::Evict() {
  const uint32_t slot = slots_[kInactive].prev;
  const uint64_t key = slots_[slot].key();
  Bucket* bucket = index_.Find(Mix64(key));
  Unlink(slot);
  PrefetchTail();
  if (!keeps_shadows() || shadow_limit() == 0) {
    ErasePage(bucket);
    ++clock_;
    return;
  }
  FreeSlot(slot);
  const size_t pos = next_pos_;
  bucket->slot = static_cast<uint32_t>(pos);
  bucket->flags = kShadow;
  const Shadow shadow{key, clock_};
  // (Dropping a shadow erases its bucket, which may move `bucket`.)
  if (held_ == ring_size_) {
    // The usual case: a full ring, whose oldest position is `pos`.
    if (ring_[pos].key != kNoKey) DropShadow(pos);
    ring_[pos] = shadow;
    next_pos_ = oldest_pos_ = NextPos(pos);
  } else {
    while (held_ >= shadow_limit()) DropOldestShadow();
    if (pos < ring_.size()) {
      ring_[pos] = shadow;
    } else {  // filling the ring for the first time
      if (ring_.size() == ring_.capacity()) {
        ring_.reserve(Grown(ring_.size(), ring_size_));
      }
      ring_.push_back(shadow);
    }
    next_pos_ = NextPos(pos);
    ++held_;
  }
  ++shadows_;
  ++clock_;
}

void PageCacheModel::Rep::DropOldestShadow() {
  if (ring_[oldest_pos_].key != kNoKey) DropShadow(oldest_pos_);
  oldest_pos_ = NextPos(oldest_pos_);
  --held_;
}

// Forgets the live shadow at ring position `pos`.
void PageCacheModel::Rep::DropShadow(size_t pos) {
  Shadow& shadow = ring_[pos];
  index_.Erase(index_.Find(Mix64(shadow.key)));
  --files_[FileOfKey(shadow.key)].entries;
  --shadows_;
  shadow.key = kNoKey;
}

// Moves the live shadows, in order, to the front of a ring of `size`
// positions. The ring then counts fewer evictions after each shadow than
// there were, so it drops shadows later, never one that could activate.
void PageCacheModel::Rep::ResizeRing(uint64_t size) {
  std::vector<Shadow> ring;
  ring.reserve(shadows_);
  size_t pos = oldest_pos_;
  for (uint64_t i = 0; i < held_; ++i, pos = NextPos(pos)) {
    const Shadow& shadow = ring_[pos];
    if (shadow.key == kNoKey) continue;
    index_.Find(Mix64(shadow.key))->slot = static_cast<uint32_t>(ring.size());
    ring.push_back(shadow);
  }
  ring_.swap(ring);
  ring_size_ = size;
  oldest_pos_ = 0;
  held_ = ring_.size();
  next_pos_ = held_;  // < size: only a larger ring is built
}

// Shrinking evicts at once and keeps the last capacity_pages evictions'
// shadows; growing past the largest ring so far rebuilds it (callers
// resize rarely: a controller's decision, a ghost's stage).
void PageCacheModel::Rep::SetCapacity(uint64_t bytes) {
  capacity_pages_ = bytes >> kPageShift;
  MakeRoom(capacity_pages_);
  if (keeps_shadows()) {
    while (held_ > shadow_limit()) DropOldestShadow();
    if (shadow_limit() > ring_size_) ResizeRing(shadow_limit());
  }
  index_.SetExpected(ExpectedEntries());
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
      ErasePage(bucket);
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
      // A shadow: the refault will read its stamp, a cache miss that the
      // read-ahead decision's lookups can hide.
      if (bucket != nullptr) PrefetchLine(&ring_[bucket->slot]);
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
    // Read-ahead only adds pages from `index` on, so this page is done.
    bucket->flags &= ~kNew;
  }
  files_[file].prev_pos = static_cast<int64_t>(pos + len);
  MakeRoom(capacity_pages_);
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
  uint64_t size, async_size;
  if (index == 0 || request > max || index - prev_index <= 1) {
    size = InitialWindow(request, max);
    async_size = size > request ? size - request : size / 2;
  } else {
    const uint64_t miss = PrevMiss(file, index - 1, max);
    uint64_t run = index - miss - 1;  // wraps to `index` if miss is "none"
    if (run <= request) {
      ReadRange(file, index, request, 0);
      return;
    }
    if (miss == UINT64_MAX) run *= 2;
    size = std::min(run + request, max);
    async_size = 1;
  }
  f.ra_start = index;
  f.ra_size = size;
  f.ra_async_size = async_size;
  ReadRange(file, index, size, async_size);
}

void PageCacheModel::Rep::AsyncReadahead(uint32_t file, Bucket* bucket,
                                         uint64_t index, uint64_t request) {
  bucket->flags &= ~kReadahead;
  const uint64_t max = max_window_;
  FileState& f = files_[file];
  uint64_t start = f.ra_start;
  uint64_t size = f.ra_size;
  if (index == start + size - f.ra_async_size) {
    start += size;
    size = std::max(size, NextWindow(size, max));
  } else {
    start = NextMiss(file, index + 1, max);
    if (start == 0 || start - index > max) return;
    size = NextWindow(start - index + request, max);
  }
  const uint64_t align = uint64_t{1} << std::min(2, std::countr_zero(max));
  const uint64_t end = start + size;
  const uint64_t aligned_end = end & ~(align - 1);
  if (aligned_end > start) size -= end - aligned_end;
  f.ra_start = start;
  f.ra_size = size;
  f.ra_async_size = size;
  ReadRange(file, start, size, size);
}

// do_page_cache_ra: reads the missing pages of [start, start + count),
// stopping at the end of the file, and marks the page `async_size` from
// the end (none if async_size is 0).
void PageCacheModel::Rep::ReadRange(uint32_t file, uint64_t start,
                                    uint64_t count, uint64_t async_size) {
  const uint64_t last_page = files_[file].last_page;
  if (start > last_page) return;
  count = std::min(count, last_page - start + 1);
  constexpr uint64_t kMaxBurst = 32;
  const uint64_t burst = std::min(count, kMaxBurst);
  if (burst > 1 && resident() + burst > capacity_pages_) {
    PrefetchTails(burst);
    PrefetchExpiring(burst);
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
