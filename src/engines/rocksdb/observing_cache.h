// ObservingCache: RocksDB's block cache (an LRU cache, with or without a
// secondary cache), unchanged, with each lookup and insert reported to the
// Adapter. Every method forwards to the wrapped cache, the secondary-cache
// aware overloads included (a wrapper that forgot them would silently turn
// the secondary tier off, as NewSimCache does in 7.8).
//
// Thread-safe as the wrapped cache is.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_CACHE_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_CACHE_H_

#include <rocksdb/cache.h>

#include <memory>
#include <string>
#include <vector>

#include "engines/rocksdb/adapter.h"

namespace symbiosis::rocksdb {

class ObservingCache final : public ::rocksdb::Cache {
 public:
  // REQUIRES: `adapter` outlives the cache.
  ObservingCache(std::shared_ptr<::rocksdb::Cache> target, Adapter* adapter);

  const char* Name() const override { return "SymbiosisObservingCache"; }
  ::rocksdb::Cache* target() const { return target_.get(); }

  ::rocksdb::Status Insert(const ::rocksdb::Slice& key, void* value, size_t charge,
                           DeleterFn deleter, Handle** handle = nullptr,
                           Priority priority = Priority::LOW) override;
  ::rocksdb::Status Insert(const ::rocksdb::Slice& key, void* value,
                           const CacheItemHelper* helper, size_t charge,
                           Handle** handle = nullptr,
                           Priority priority = Priority::LOW) override;
  Handle* Lookup(const ::rocksdb::Slice& key, ::rocksdb::Statistics* stats = nullptr) override;
  Handle* Lookup(const ::rocksdb::Slice& key, const CacheItemHelper* helper,
                 const CreateCallback& create_cb, Priority priority, bool wait,
                 ::rocksdb::Statistics* stats = nullptr) override;

  bool Ref(Handle* handle) override { return target_->Ref(handle); }
  bool Release(Handle* handle, bool erase_if_last_ref = false) override {
    return target_->Release(handle, erase_if_last_ref);
  }
  bool Release(Handle* handle, bool useful, bool erase_if_last_ref) override {
    return target_->Release(handle, useful, erase_if_last_ref);
  }
  void* Value(Handle* handle) override { return target_->Value(handle); }
  void Erase(const ::rocksdb::Slice& key) override { target_->Erase(key); }
  uint64_t NewId() override { return target_->NewId(); }
  void SetCapacity(size_t capacity) override { target_->SetCapacity(capacity); }
  void SetStrictCapacityLimit(bool strict) override { target_->SetStrictCapacityLimit(strict); }
  bool HasStrictCapacityLimit() const override { return target_->HasStrictCapacityLimit(); }
  size_t GetCapacity() const override { return target_->GetCapacity(); }
  size_t GetUsage() const override { return target_->GetUsage(); }
  size_t GetOccupancyCount() const override { return target_->GetOccupancyCount(); }
  size_t GetTableAddressCount() const override { return target_->GetTableAddressCount(); }
  size_t GetUsage(Handle* handle) const override { return target_->GetUsage(handle); }
  size_t GetPinnedUsage() const override { return target_->GetPinnedUsage(); }
  size_t GetCharge(Handle* handle) const override { return target_->GetCharge(handle); }
  DeleterFn GetDeleter(Handle* handle) const override { return target_->GetDeleter(handle); }
  void DisownData() override { target_->DisownData(); }
  void ApplyToAllEntries(
      const std::function<void(const ::rocksdb::Slice& key, void* value, size_t charge,
                               DeleterFn deleter)>& callback,
      const ApplyToAllEntriesOptions& opts) override {
    target_->ApplyToAllEntries(callback, opts);
  }
  void EraseUnRefEntries() override { target_->EraseUnRefEntries(); }
  std::string GetPrintableOptions() const override { return target_->GetPrintableOptions(); }
  bool IsReady(Handle* handle) override { return target_->IsReady(handle); }
  void Wait(Handle* handle) override { target_->Wait(handle); }
  void WaitAll(std::vector<Handle*>& handles) override { target_->WaitAll(handles); }

 private:
  // Reports a finished lookup with the size of the block's contents, as
  // `helper` tells it (else its charge); a pending handle (wait == false)
  // has no value to size yet, so it is counted but not sized.
  Handle* Looked(const ::rocksdb::Slice& key, Handle* handle, const CacheItemHelper* helper,
                 bool can_size);

  const std::shared_ptr<::rocksdb::Cache> target_;
  Adapter* const adapter_;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_OBSERVING_CACHE_H_
