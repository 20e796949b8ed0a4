#include "engines/rocksdb/observing_cache.h"

namespace symbiosis::rocksdb {
namespace {

std::string_view View(const ::rocksdb::Slice& s) { return {s.data(), s.size()}; }

// Whether the helper tells the size of an item's contents (what the
// secondary would store of it).
bool Sizes(const ::rocksdb::Cache::CacheItemHelper* helper) {
  return helper != nullptr && helper->size_cb != nullptr;
}

}  // namespace

ObservingCache::ObservingCache(std::shared_ptr<::rocksdb::Cache> target, Adapter* adapter)
    : target_(std::move(target)), adapter_(adapter) {}

::rocksdb::Status ObservingCache::Insert(const ::rocksdb::Slice& key, void* value, size_t charge,
                                         DeleterFn deleter, Handle** handle, Priority priority) {
  const ::rocksdb::Status s = target_->Insert(key, value, charge, deleter, handle, priority);
  if (s.ok()) adapter_->OnInsert(View(key), charge, charge);
  return s;
}

::rocksdb::Status ObservingCache::Insert(const ::rocksdb::Slice& key, void* value,
                                         const CacheItemHelper* helper, size_t charge,
                                         Handle** handle, Priority priority) {
  // Sized before the insert: without a handle the cache may free the
  // value at once.
  const size_t size = Sizes(helper) ? helper->size_cb(value) : charge;
  const ::rocksdb::Status s = target_->Insert(key, value, helper, charge, handle, priority);
  if (s.ok()) adapter_->OnInsert(View(key), charge, size);
  return s;
}

ObservingCache::Handle* ObservingCache::Lookup(const ::rocksdb::Slice& key,
                                               ::rocksdb::Statistics* stats) {
  adapter_->OnLookupStart(View(key));
  return Looked(key, target_->Lookup(key, stats), nullptr, true);
}

ObservingCache::Handle* ObservingCache::Lookup(const ::rocksdb::Slice& key,
                                               const CacheItemHelper* helper,
                                               const CreateCallback& create_cb,
                                               Priority priority, bool wait,
                                               ::rocksdb::Statistics* stats) {
  adapter_->OnLookupStart(View(key));
  return Looked(key, target_->Lookup(key, helper, create_cb, priority, wait, stats), helper,
                wait);
}

ObservingCache::Handle* ObservingCache::Looked(const ::rocksdb::Slice& key, Handle* handle,
                                               const CacheItemHelper* helper, bool can_size) {
  size_t size = 0;
  if (handle != nullptr && can_size) {
    size = Sizes(helper) ? helper->size_cb(target_->Value(handle)) : target_->GetCharge(handle);
  }
  adapter_->OnLookupEnd(View(key), handle != nullptr, size);
  return handle;
}

}  // namespace symbiosis::rocksdb
