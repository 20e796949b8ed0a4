// ObservingSecondaryCache: RocksDB's compressed secondary cache, unchanged,
// with each lookup reported to the Adapter (a hit is a second-tier hit, a
// miss is followed by a device read), each store of a block (compressed,
// not a dummy) timed and reported, and without the entries of deleted
// table files.
//
// A store is told from a dummy by RocksDB's own count of real inserts in
// the thread's perf context, which counts at its default level. A thread
// that set a lower level has it raised for the insert, and the counters
// the insert moved put back, so that thread's perf context reads as if
// the wrapper were not there.
//
// RocksDB 7.8 never erases a deleted table's blocks from the secondary
// cache: they would hold its capacity until they aged out, and blocks of a
// deleted table still in the primary cache would keep arriving on eviction.
// So the wrapper remembers the keys it passed on per file prefix, and when
// the Adapter reports a table deleted (DeletionListener) it erases them
// and turns that file's later inserts away. The memory this costs is 8
// bytes per distinct block inserted of a live table, plus the hash set's
// overhead. KeysOf and Holds count what is left of a file, for tests.
//
// With a flash tier below (engine budget), the wrapper is where the tiers
// meet, since RocksDB 7.8 takes one secondary cache per block cache: a
// lookup the compressed cache misses goes to the flash tier (a hit there
// is reported as OnFlashHit), and a block evicted from the block cache is
// offered to the flash tier first, whose own rules decide (flash_tier.h),
// then to the compressed cache. The flash tier keeps its own capacity:
// SetCapacity is the compressed cache's, which the Controller sets.
//
// Thread-safe.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_SECONDARY_CACHE_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_SECONDARY_CACHE_H_

#include <rocksdb/secondary_cache.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engines/rocksdb/adapter.h"
#include "engines/rocksdb/flash_tier.h"

namespace symbiosis::rocksdb {

class ObservingSecondaryCache final : public ::rocksdb::SecondaryCache {
 public:
  // REQUIRES: `adapter` outlives the cache. `flash` may be null.
  ObservingSecondaryCache(std::shared_ptr<::rocksdb::SecondaryCache> target, Adapter* adapter,
                          std::shared_ptr<FlashTier> flash = nullptr);

  const char* Name() const override { return "SymbiosisObservingSecondaryCache"; }

  ::rocksdb::Status Insert(const ::rocksdb::Slice& key, void* value,
                           const ::rocksdb::Cache::CacheItemHelper* helper) override;
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> Lookup(
      const ::rocksdb::Slice& key, const ::rocksdb::Cache::CreateCallback& create_cb, bool wait,
      bool advise_erase, bool& is_in_sec_cache) override;
  bool SupportForceErase() const override { return target_->SupportForceErase(); }
  void Erase(const ::rocksdb::Slice& key) override;
  void WaitAll(std::vector<::rocksdb::SecondaryCacheResultHandle*> handles) override {
    target_->WaitAll(std::move(handles));
  }
  ::rocksdb::Status SetCapacity(size_t capacity) override { return target_->SetCapacity(capacity); }
  ::rocksdb::Status GetCapacity(size_t& capacity) override { return target_->GetCapacity(capacity); }
  std::string GetPrintableOptions() const override { return target_->GetPrintableOptions(); }

  // Erases every block of the table file with these key prefixes and turns
  // their later inserts away.
  void DropFile(const std::vector<uint64_t>& prefixes);

  // For tests, slow: the keys passed on under `prefix` and not dropped,
  // and how many of `keys` the wrapped cache still holds (each looked up
  // with a create callback that builds nothing).
  std::vector<std::string> KeysOf(uint64_t prefix);
  size_t Holds(const std::vector<std::string>& keys);

 private:
  const std::shared_ptr<::rocksdb::SecondaryCache> target_;
  Adapter* const adapter_;
  const std::shared_ptr<FlashTier> flash_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::unordered_set<uint64_t>> keys_;  // prefix -> lows
  std::unordered_set<uint64_t> dropped_;                             // prefixes
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_SECONDARY_CACHE_H_
