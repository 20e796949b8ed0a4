#include "engines/rocksdb/observing_cache.h"

namespace symbiosis::rocksdb {
namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

}  // namespace

ObservingCache::ObservingCache(std::shared_ptr<::rocksdb::Cache> target, Adapter* adapter)
    : target_(std::move(target)), adapter_(adapter) {}

::rocksdb::Status ObservingCache::Insert(const ::rocksdb::Slice& key, void* value, size_t charge,
                                         DeleterFn deleter, Handle** handle, Priority priority) {
  const ::rocksdb::Status s = target_->Insert(key, value, charge, deleter, handle, priority);
  if (s.ok()) adapter_->OnInsert(View(key), charge);
  return s;
}

::rocksdb::Status ObservingCache::Insert(const ::rocksdb::Slice& key, void* value,
                                         const CacheItemHelper* helper, size_t charge,
                                         Handle** handle, Priority priority) {
  const ::rocksdb::Status s = target_->Insert(key, value, helper, charge, handle, priority);
  if (s.ok()) adapter_->OnInsert(View(key), charge);
  return s;
}

ObservingCache::Handle* ObservingCache::Lookup(const ::rocksdb::Slice& key,
                                               ::rocksdb::Statistics* stats) {
  adapter_->OnLookupStart(View(key));
  return Looked(key, target_->Lookup(key, stats), true);
}

ObservingCache::Handle* ObservingCache::Lookup(const ::rocksdb::Slice& key,
                                               const CacheItemHelper* helper,
                                               const CreateCallback& create_cb,
                                               Priority priority, bool wait,
                                               ::rocksdb::Statistics* stats) {
  adapter_->OnLookupStart(View(key));
  return Looked(key, target_->Lookup(key, helper, create_cb, priority, wait, stats), wait);
}

ObservingCache::Handle* ObservingCache::Looked(const ::rocksdb::Slice& key, Handle* handle,
                                               bool can_size) {
  const size_t charge = handle != nullptr && can_size ? target_->GetCharge(handle) : 0;
  adapter_->OnLookupEnd(View(key), handle != nullptr, charge);
  return handle;
}

}  // namespace symbiosis::rocksdb
