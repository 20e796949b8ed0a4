// FlashTier: a ::rocksdb::SecondaryCache on flash (a FlashStore) for
// tables on slow storage, made aware of the LSM tree as SAS-Cache is
// (Cao et al.), through RocksDB's public interfaces only. Three
// optimizations, each switchable (FlashTierOptions); with all off it is
// the paper's baseline, a plain flash tier that stores every block evicted
// from DRAM and evicts passively:
//
//  - Bypass. The index lives in memory, so a lookup of a key it lacks
//    never reads flash (it is counted as bypassed, not as a flash lookup,
//    as SAS-Cache's filter counts it). On top, the tier times its hits
//    and the foreground reads of the storage below (OnStorageRead); while
//    a flash hit is not faster than a storage read, flash does not pay,
//    and lookups and inserts skip it but for one in kProbeEvery, which
//    keeps both times current (docs/decisions/flash-bypass.md).
//  - Insertion control. Blocks of tables that a compaction is rewriting
//    (OnCompactionBegin, until it fails) or that were deleted are not
//    inserted: their cache-key prefixes are kept in a set, the last
//    kRememberedFiles of them (SAS-Cache keeps a FIFO of file numbers; a
//    deleted table's blocks leave the DRAM caches within one pass of
//    their LRU lists, long before 65536 more tables are deleted).
//  - Compaction drop. A deleted table's blocks leave the flash at once
//    (FlashStore::DropFiles), not when their region is reclaimed.
//
// Every tier, optimized or not, skips an insert of a block already on
// flash (RocksDB re-inserts a promoted block at its next eviction) and
// returns false in is_in_sec_cache, so a block that a flash hit promoted
// goes back to the compressed DRAM cache when it is evicted again.
//
// An insert serializes the block (its helper's saveto) on the inserting
// thread, which RocksDB runs after an eviction, outside its locks. With
// background_writes the bytes go to a queue of at most write_queue_bytes
// that a thread of the tier's own appends to the store; a full queue
// drops the block (counted), so a slow flash never stalls a read. Without,
// the inserting thread appends, and writes a region when it fills.
//
// Thread-safe.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_FLASH_TIER_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_FLASH_TIER_H_

#include <rocksdb/secondary_cache.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engines/rocksdb/flash_store.h"
#include "symbiosis/rocksdb.h"

namespace symbiosis::rocksdb {

class FlashTier final : public ::rocksdb::SecondaryCache {
 public:
  static constexpr uint32_t kProbeEvery = 32;
  static constexpr size_t kRememberedFiles = size_t{1} << 16;
  // Flash hits and storage reads each timed before the bypass judges.
  static constexpr uint32_t kMinSamples = 64;

  // Opens the store. Throws InputError (one line) for bad options: see
  // FlashStore, and a write queue smaller than a region.
  // `expected_entry_bytes`: the tables' block size.
  FlashTier(const FlashTierOptions& options, uint32_t expected_entry_bytes);
  ~FlashTier() override;

  const char* Name() const override { return "SymbiosisFlashTier"; }
  ::rocksdb::Status Insert(const ::rocksdb::Slice& key, void* value,
                           const ::rocksdb::Cache::CacheItemHelper* helper) override {
    InsertTimed(key, value, helper);
    return ::rocksdb::Status::OK();
  }
  // Insert, returning the nanoseconds it took the caller's thread (the
  // foreground insert time, counted in insert_ns too).
  uint64_t InsertTimed(const ::rocksdb::Slice& key, void* value,
                       const ::rocksdb::Cache::CacheItemHelper* helper);
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> Lookup(
      const ::rocksdb::Slice& key, const ::rocksdb::Cache::CreateCallback& create_cb, bool wait,
      bool advise_erase, bool& is_in_sec_cache) override;
  bool SupportForceErase() const override { return false; }
  void Erase(const ::rocksdb::Slice& /*key*/) override {}  // flash is not written in place
  void WaitAll(std::vector<::rocksdb::SecondaryCacheResultHandle*> /*handles*/) override {}
  ::rocksdb::Status SetCapacity(size_t capacity) override;
  ::rocksdb::Status GetCapacity(size_t& capacity) override;
  std::string GetPrintableOptions() const override;

  // The LSM tree's events, as the cache-key prefixes of the tables named.
  void OnCompactionBegin(const std::vector<uint64_t>& input_prefixes);
  void OnCompactionFailed(const std::vector<uint64_t>& input_prefixes);
  void OnTablesDeleted(const std::vector<uint64_t>& prefixes);
  // A foreground read of a table file took `ns` (emulation included).
  void OnStorageRead(uint64_t ns);

  FlashTierStats Stats() const;
  uint64_t DramBytes() const;
  // What a tier of these options holds in DRAM at most, about (the store
  // full of blocks of `expected_entry_bytes`, and the write queue).
  static uint64_t PlannedDramBytes(const FlashTierOptions& options, uint32_t expected_entry_bytes);
  // Waits until every queued block is appended, then writes the open
  // region: its entries become visible (tests, benchmarks' phases).
  void Drain();

 private:
  struct Queued {
    std::string key;
    std::string value;
  };

  bool FlashPays() const;
  // One call in kProbeEvery is true (per thread).
  static bool Probe();
  bool Doomed(uint64_t prefix) const;
  void Doom(const std::vector<uint64_t>& prefixes);
  void WriterLoop();
  static void Update(std::atomic<uint64_t>* mean, std::atomic<uint64_t>* count, uint64_t ns);

  const FlashTierOptions options_;
  FlashStore store_;

  mutable std::shared_mutex doomed_mu_;
  std::unordered_map<uint64_t, uint64_t> doomed_;    // guarded by doomed_mu_; prefix -> seq
  std::deque<std::pair<uint64_t, uint64_t>> doomed_order_;  // guarded by doomed_mu_
  uint64_t doomed_seq_ = 0;                                 // guarded by doomed_mu_

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::condition_variable drained_cv_;
  std::deque<Queued> queue_;   // guarded by queue_mu_
  uint64_t queued_bytes_ = 0;  // guarded by queue_mu_
  bool writing_ = false;       // guarded by queue_mu_
  bool stop_ = false;          // guarded by queue_mu_
  std::thread writer_;

  // Recent means (exponential, 1/64 a sample), racy updates are fine.
  std::atomic<uint64_t> flash_hit_ns_{0};
  std::atomic<uint64_t> flash_hit_samples_{0};
  std::atomic<uint64_t> storage_read_ns_{0};
  std::atomic<uint64_t> storage_read_samples_{0};

  std::atomic<uint64_t> lookups_{0};
  std::atomic<uint64_t> flash_lookups_{0};
  std::atomic<uint64_t> flash_hits_{0};
  std::atomic<uint64_t> bypassed_absent_{0};
  std::atomic<uint64_t> bypassed_slow_{0};
  std::atomic<uint64_t> inserts_{0};
  std::atomic<uint64_t> inserts_invalid_{0};
  std::atomic<uint64_t> inserts_present_{0};
  std::atomic<uint64_t> inserts_slow_{0};
  std::atomic<uint64_t> inserts_queue_full_{0};
  std::atomic<uint64_t> inserts_written_{0};
  std::atomic<uint64_t> insert_ns_{0};
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_FLASH_TIER_H_
