#include "engines/rocksdb/observing_secondary_cache.h"

#include <cstring>

#include "symbiosis/sched_times.h"

namespace symbiosis::rocksdb {
namespace {

std::string Key(uint64_t prefix, uint64_t low) {
  std::string key(16, '\0');
  std::memcpy(key.data(), &prefix, 8);
  std::memcpy(key.data() + 8, &low, 8);
  return key;
}

}  // namespace

ObservingSecondaryCache::ObservingSecondaryCache(
    std::shared_ptr<::rocksdb::SecondaryCache> target, Adapter* adapter)
    : target_(std::move(target)), adapter_(adapter) {}

::rocksdb::Status ObservingSecondaryCache::Insert(const ::rocksdb::Slice& key, void* value,
                                                  const ::rocksdb::Cache::CacheItemHelper* helper) {
  if (key.size() == 16) {
    const std::string_view k(key.data(), key.size());
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t prefix = CacheKeyMap::Prefix(k);
    if (dropped_.count(prefix) > 0) return ::rocksdb::Status::OK();  // a deleted table's block
    keys_[prefix].insert(CacheKeyMap::Low(k));
  }
  return target_->Insert(key, value, helper);
}

std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> ObservingSecondaryCache::Lookup(
    const ::rocksdb::Slice& key, const ::rocksdb::Cache::CreateCallback& create_cb, bool wait,
    bool advise_erase, bool& is_in_sec_cache) {
  const uint64_t start = SteadyNowNs();
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> handle =
      target_->Lookup(key, create_cb, wait, advise_erase, is_in_sec_cache);
  // With wait, a handle is ready and Value() tells; without, a handle
  // means the value is coming.
  const bool hit = handle != nullptr && (!wait || handle->Value() != nullptr);
  adapter_->OnSecondaryLookup(hit, start);
  return handle;
}

void ObservingSecondaryCache::Erase(const ::rocksdb::Slice& key) { target_->Erase(key); }

void ObservingSecondaryCache::DropFile(const std::vector<uint64_t>& prefixes) {
  std::vector<std::string> erase;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t prefix : prefixes) {
      dropped_.insert(prefix);
      const auto it = keys_.find(prefix);
      if (it == keys_.end()) continue;
      for (uint64_t low : it->second) erase.push_back(Key(prefix, low));
      keys_.erase(it);
    }
  }
  for (const std::string& key : erase) target_->Erase(key);
}

std::vector<std::string> ObservingSecondaryCache::KeysOf(uint64_t prefix) {
  std::vector<std::string> keys;
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = keys_.find(prefix);
  if (it != keys_.end()) {
    for (uint64_t low : it->second) keys.push_back(Key(prefix, low));
  }
  return keys;
}

size_t ObservingSecondaryCache::Holds(const std::vector<std::string>& keys) {
  size_t held = 0;
  for (const std::string& key : keys) {
    bool found = false;
    const ::rocksdb::Cache::CreateCallback probe = [&found](const void*, size_t, void** out,
                                                            size_t* charge) {
      found = true;
      *out = nullptr;
      *charge = 0;
      return ::rocksdb::Status::Aborted("probe only");
    };
    bool in_cache = false;
    std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> handle =
        target_->Lookup(key, probe, /*wait=*/true, /*advise_erase=*/false, in_cache);
    if (found || (handle != nullptr && handle->Value() != nullptr)) ++held;
  }
  return held;
}

}  // namespace symbiosis::rocksdb
