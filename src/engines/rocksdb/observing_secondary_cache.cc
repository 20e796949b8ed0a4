#include "engines/rocksdb/observing_secondary_cache.h"

#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <cstring>

#include "symbiosis/sched_times.h"

namespace symbiosis::rocksdb {
namespace {

// Whether the secondary stored a block during this object's life, from
// the perf context's count of real inserts (see the header).
class StoreProbe {
 public:
  StoreProbe()
      : level_(::rocksdb::GetPerfLevel()),
        raised_(level_ < ::rocksdb::PerfLevel::kEnableCount),
        context_(::rocksdb::get_perf_context()),
        before_(*context_) {
    if (raised_) ::rocksdb::SetPerfLevel(::rocksdb::PerfLevel::kEnableCount);
  }
  ~StoreProbe() {
    if (!raised_) return;
    ::rocksdb::SetPerfLevel(level_);
    context_->compressed_sec_cache_insert_real_count = before_.real;
    context_->compressed_sec_cache_insert_dummy_count = before_.dummy;
    context_->compressed_sec_cache_uncompressed_bytes = before_.uncompressed;
    context_->compressed_sec_cache_compressed_bytes = before_.compressed;
  }
  StoreProbe(const StoreProbe&) = delete;
  StoreProbe& operator=(const StoreProbe&) = delete;

  bool Stored() const { return context_->compressed_sec_cache_insert_real_count > before_.real; }

 private:
  struct Counts {
    explicit Counts(const ::rocksdb::PerfContext& c)
        : real(c.compressed_sec_cache_insert_real_count),
          dummy(c.compressed_sec_cache_insert_dummy_count),
          uncompressed(c.compressed_sec_cache_uncompressed_bytes),
          compressed(c.compressed_sec_cache_compressed_bytes) {}
    uint64_t real, dummy, uncompressed, compressed;
  };
  const ::rocksdb::PerfLevel level_;
  const bool raised_;
  ::rocksdb::PerfContext* const context_;
  const Counts before_;
};

}  // namespace

ObservingSecondaryCache::ObservingSecondaryCache(
    std::shared_ptr<::rocksdb::SecondaryCache> target, Adapter* adapter,
    std::shared_ptr<FlashTier> flash)
    : target_(std::move(target)), adapter_(adapter), flash_(std::move(flash)) {}

::rocksdb::Status ObservingSecondaryCache::Insert(const ::rocksdb::Slice& key, void* value,
                                                  const ::rocksdb::Cache::CacheItemHelper* helper) {
  if (flash_ != nullptr) adapter_->OnFlashInsert(flash_->InsertTimed(key, value, helper));
  if (key.size() == 16) {
    const std::string_view k(key.data(), key.size());
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t prefix = CacheKeyMap::Prefix(k);
    if (dropped_.count(prefix) > 0) return ::rocksdb::Status::OK();  // a deleted table's block
    keys_[prefix].insert(CacheKeyMap::Low(k));
  }
  const uint64_t start = SteadyNowNs();
  const StoreProbe probe;
  const ::rocksdb::Status s = target_->Insert(key, value, helper);
  if (probe.Stored()) adapter_->OnSecondaryStore(SteadyNowNs() - start);
  return s;
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
  if (hit || flash_ == nullptr) return handle;
  bool in_flash = false;
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> flash =
      flash_->Lookup(key, create_cb, wait, advise_erase, in_flash);
  if (flash == nullptr) return handle;
  adapter_->OnFlashHit();
  is_in_sec_cache = false;
  return flash;
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
      for (uint64_t low : it->second) erase.push_back(CacheKeyMap::Key(prefix, low));
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
    for (uint64_t low : it->second) keys.push_back(CacheKeyMap::Key(prefix, low));
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
