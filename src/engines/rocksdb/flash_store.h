// FlashStore: a log-structured cache of values under 16-byte keys in one
// file on a fast local device (the "flash"), the store of the flash tier
// below RocksDB's DRAM caches (flash_tier.h).
//
// The file is cut into regions of region_bytes. An append goes to the
// open region's buffer in memory; a full buffer is written with one
// pwrite, and only then are its entries indexed (visible to lookups).
// When no region is free, one is reclaimed: its entries leave the index
// and it is written anew. Flash is so written in large sequential units
// and never in place, as production flash caches write it (CacheLib's
// block cache, Kangaroo's log); the price is eviction by region, not by
// entry. The region reclaimed is the one with the fewest live entries
// among the oldest quarter written (FIFO where all are alike): entries
// dropped, pushed out or replaced leave room that a reclaim takes back
// first (docs/decisions/flash-reclaim.md).
//
// An entry on flash is a 32-byte header (a magic number, the value's size,
// the key, a 64-bit checksum over the header and the value) and the value,
// padded to 8 bytes. A lookup reads the entry at the location the index
// gives and returns the value only if magic, key, size and checksum all
// match: a torn write, a region rewritten since the index was read, a
// flipped byte are misses, never a wrong value. The index is in memory
// only: a store opened again starts empty whatever the file holds, so an
// entry of an earlier process is never served.
//
// The index is a table of 64-byte buckets of eight 8-byte slots, read
// without locks: a 16-bit tag of the key's hash, the 16-bit number of the
// entry's file (its key's 8-byte prefix: all blocks of one RocksDB table
// share it), and a 32-bit location (region, and offset in 8-byte units).
// A key's bucket is fixed by its hash; a lookup reads one cache line. Two
// keys with one tag in a bucket cost a flash read that the header turns
// into a miss (about once in 8K absent lookups). Buckets are sized at
// Open for capacity / expected_entry_bytes entries at a load of 3/4; an
// entry whose bucket is full takes the place of one of its eight, which
// leaves the cache early (index_evictions). Each region keeps the hashes
// of its entries (8 bytes each) so that a reclaim removes them without
// reading the region back. DramBytes() is what all this holds.
//
// Files: entries of a file can be dropped at once (DropFiles, the tier's
// compaction-aware replacement) by one scan of the index, or only marked
// deleted (MarkFilesDeleted) so that the entries of deleted files still
// held, the invalid block occupancy (Stats::invalid_entries), can be
// counted while eviction stays passive.
//
// I/O: O_DIRECT where the file system takes it (so the flash's pages do
// not fill the page cache beside the memory budget), buffered otherwise
// (tmpfs), said in Stats::direct_io. A failed write (ENOSPC, EIO) turns
// the store off for good: every later lookup misses and every append is
// dropped; Stats::failure says why. A failed or short read is a miss.
//
// Thread-safe. Lookup and Contains take no lock; Append, DropFiles,
// MarkFilesDeleted and SetCapacity take the writer's mutex, so an Append
// that fills a region (a synchronous insert) waits for its write.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_FLASH_STORE_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_FLASH_STORE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace symbiosis::rocksdb {

struct FlashStoreOptions {
  // The flash: a file (created if missing, truncated) or an existing
  // directory (the file "symbiosis-flash-tier" in it).
  std::string path;
  uint64_t capacity_bytes = 0;
  // A multiple of 4 KiB, from 64 KiB to 64 MiB.
  uint32_t region_bytes = 1u << 20;
  // The mean entry the index is sized for (RocksDB's block_size).
  uint32_t expected_entry_bytes = 4096;
  // Appends of the files DropFiles or MarkFilesDeleted named are refused
  // (the flash tier's insertion control, for the appends already queued).
  bool refuse_deleted_files = false;
};

struct FlashStoreStats {
  uint64_t capacity_bytes = 0;
  uint64_t entries = 0;           // held: indexed, or in the open region
  uint64_t invalid_entries = 0;   // of which of files marked deleted
  uint64_t lookups = 0;           // Lookup calls that found a slot
  uint64_t hits = 0;
  uint64_t mismatches = 0;        // a slot whose entry did not check out
  uint64_t read_errors = 0;
  uint64_t appends = 0;
  uint64_t index_evictions = 0;   // entries a full bucket pushed out
  uint64_t file_table_drops = 0;  // appends of a 65536th live file
  uint64_t deleted_refusals = 0;  // appends of deleted files refused
  uint64_t regions_written = 0;
  uint64_t bytes_written = 0;     // to the file
  uint64_t regions_reclaimed = 0;
  uint64_t dropped_entries = 0;   // removed by DropFiles
  uint64_t dram_bytes = 0;        // DramBytes()
  bool direct_io = false;
  bool failed = false;
  std::string failure;            // why, when failed
};

class FlashStore {
 public:
  static constexpr size_t kRememberedDeletedFiles = size_t{1} << 16;
  // A reclaim looks at the oldest 1/kReclaimWindowDivisor of the regions.
  static constexpr size_t kReclaimWindowDivisor = 4;

  // Opens (creates, truncates) the file. Throws InputError (one line that
  // says what to change) for a path that cannot be written, a capacity
  // below two regions or above what a location addresses (32 GiB at
  // 8-byte units), a region size out of range, or a device smaller than
  // the capacity.
  explicit FlashStore(const FlashStoreOptions& options);
  ~FlashStore();
  FlashStore(const FlashStore&) = delete;
  FlashStore& operator=(const FlashStore&) = delete;

  // The value under `key` into *value, or false (absent, or its entry did
  // not check out, or the read failed). REQUIRES: key.size() == 16.
  bool Lookup(std::string_view key, std::string* value);
  // Whether the index has a slot for `key`'s tag (no flash read; a false
  // true about once in 2^16).
  bool Contains(std::string_view key) const;

  // Appends an entry; it is visible once its region is written. Returns
  // false if dropped (the store failed, the value does not fit a region,
  // the file table is full, its file was deleted and refuse_deleted_files
  // holds). REQUIRES: key.size() == 16.
  bool Append(std::string_view key, std::string_view value);
  // Writes the open region now, part-full (tests, a clean close).
  void Flush();

  // Removes every entry of the files with these key prefixes.
  void DropFiles(const std::vector<uint64_t>& prefixes);
  // Counts these files' entries as invalid from now on (passive eviction),
  // and those appended later. The last kRememberedDeletedFiles deleted
  // files are remembered (8 bytes each, twice).
  void MarkFilesDeleted(const std::vector<uint64_t>& prefixes);

  // Regions beyond the new capacity are emptied and the file truncated.
  // Throws InputError for a capacity below two regions or above the
  // maximum.
  void SetCapacity(uint64_t bytes);
  uint64_t capacity_bytes() const;

  uint64_t DramBytes() const;
  // What a store of these options holds in DRAM when full of entries of
  // the expected size (what a budget sets aside for it).
  static uint64_t PlannedDramBytes(const FlashStoreOptions& options);
  FlashStoreStats Stats() const;
  const std::string& file_path() const { return file_path_; }

 private:
  struct FileInfo {
    uint64_t prefix = 0;
    uint64_t entries = 0;
    bool deleted = false;
  };

  // Slot layout: tag (16) | file (16) | location (32). 0 is empty: file
  // numbers start at 1.
  static constexpr size_t kBucketSlots = 8;
  static uint64_t MakeSlot(uint64_t hash, uint32_t file, uint32_t location);
  static uint16_t SlotTag(uint64_t slot) { return static_cast<uint16_t>(slot >> 48); }
  static uint32_t SlotFile(uint64_t slot) { return static_cast<uint32_t>(slot >> 32) & 0xffffu; }
  static uint32_t SlotLocation(uint64_t slot) { return static_cast<uint32_t>(slot); }
  static uint16_t HashTag(uint64_t hash) { return static_cast<uint16_t>(hash >> 48); }
  static uint64_t KeyHash(std::string_view key);
  static size_t BucketCount(const FlashStoreOptions& options);
  std::atomic<uint64_t>* Bucket(uint64_t hash) const {
    return &slots_[(static_cast<size_t>(hash) & bucket_mask_) * kBucketSlots];
  }

  uint32_t Location(uint32_t region, uint32_t offset) const;
  uint32_t LocationRegion(uint32_t location) const { return location >> offset_bits_; }
  uint64_t LocationOffset(uint32_t location) const;

  bool ReadEntry(uint32_t location, std::string_view key, std::string* value);

  // REQUIRES: write_mu_ held.
  void IndexInsert(uint64_t hash, uint32_t file, uint32_t location);
  void ClearSlot(std::atomic<uint64_t>* slot);  // and ForgetEntry of its file
  void ForgetEntry(uint32_t file);
  void ReclaimRegion(uint32_t region);
  uint32_t FileFor(uint64_t prefix);  // 0 when the table is full
  void WriteOpenRegion();
  uint32_t TakeRegion();  // a free region, or one reclaimed
  void Fail(const std::string& why);
  void ValidateCapacity(uint64_t bytes) const;
  bool SetCapacityLocked(uint64_t bytes);  // false (errno) if the file could not be sized
  void RememberDeleted(uint64_t prefix);

  const FlashStoreOptions options_;
  std::string file_path_;
  int fd_ = -1;
  bool direct_io_ = false;
  uint32_t offset_bits_ = 0;   // log2 of region_bytes / 8
  uint64_t max_regions_ = 0;   // what a location addresses

  // The index: slots_ read without a lock, written under write_mu_.
  std::unique_ptr<std::atomic<uint64_t>[]> slots_;
  size_t slot_count_ = 0;
  size_t bucket_mask_ = 0;

  mutable std::mutex write_mu_;
  uint64_t regions_ = 0;                                 // guarded by write_mu_
  std::vector<std::vector<uint64_t>> region_hashes_;     // guarded by write_mu_
  std::vector<uint32_t> region_live_;  // guarded by write_mu_; indexed entries per region
  std::deque<uint32_t> written_;  // guarded by write_mu_; oldest first
  std::vector<uint32_t> free_;    // guarded by write_mu_
  // The open region: its aligned buffer, the bytes used, its entries'
  // (hash, file, offset) until written.
  struct Pending {
    uint64_t hash;
    uint32_t file;
    uint32_t offset;
  };
  char* buffer_ = nullptr;        // guarded by write_mu_
  uint32_t used_ = 0;             // guarded by write_mu_
  std::vector<Pending> pending_;  // guarded by write_mu_
  std::vector<FileInfo> files_;   // guarded by write_mu_; [0] unused
  std::vector<uint32_t> free_files_;                     // guarded by write_mu_
  std::unordered_map<uint64_t, uint32_t> file_of_;       // guarded by write_mu_
  uint64_t entries_ = 0;          // guarded by write_mu_
  uint64_t invalid_entries_ = 0;  // guarded by write_mu_
  uint64_t index_evictions_ = 0;    // guarded by write_mu_
  uint64_t file_table_drops_ = 0;   // guarded by write_mu_
  uint64_t deleted_refusals_ = 0;   // guarded by write_mu_
  uint64_t regions_written_ = 0;    // guarded by write_mu_
  uint64_t bytes_written_ = 0;      // guarded by write_mu_
  uint64_t regions_reclaimed_ = 0;  // guarded by write_mu_
  uint64_t dropped_entries_ = 0;    // guarded by write_mu_
  uint64_t appends_ = 0;            // guarded by write_mu_
  std::string failure_;             // guarded by write_mu_
  std::unordered_set<uint64_t> deleted_;  // guarded by write_mu_; prefixes
  std::deque<uint64_t> deleted_order_;    // guarded by write_mu_; oldest first

  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> lookups_{0};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> mismatches_{0};
  std::atomic<uint64_t> read_errors_{0};
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_FLASH_STORE_H_
