#include "engines/rocksdb/flash_tier.h"

#include <cstring>

#include "engines/rocksdb/cache_key_map.h"
#include "symbiosis/error.h"
#include "symbiosis/sched_times.h"

namespace symbiosis::rocksdb {
namespace {

FlashStoreOptions StoreOptions(const FlashTierOptions& options, uint32_t expected_entry_bytes) {
  FlashStoreOptions store;
  store.path = options.path;
  store.capacity_bytes = options.capacity_bytes;
  store.region_bytes = options.region_bytes;
  store.expected_entry_bytes = expected_entry_bytes;
  store.refuse_deleted_files = options.insertion_control;
  if (options.background_writes && options.write_queue_bytes < options.region_bytes) {
    throw InputError("the flash tier's write queue of " +
                     std::to_string(options.write_queue_bytes) +
                     " bytes is smaller than a region; give it at least region_bytes");
  }
  return store;
}

uint64_t Prefix(const ::rocksdb::Slice& key) {
  return CacheKeyMap::Prefix(std::string_view(key.data(), key.size()));
}

// A flash hit's value, ready at once.
class ReadyHandle final : public ::rocksdb::SecondaryCacheResultHandle {
 public:
  ReadyHandle(void* value, size_t size) : value_(value), size_(size) {}
  bool IsReady() override { return true; }
  void Wait() override {}
  void* Value() override { return value_; }
  size_t Size() override { return size_; }

 private:
  void* const value_;
  const size_t size_;
};

thread_local std::string lookup_buffer;

}  // namespace

FlashTier::FlashTier(const FlashTierOptions& options, uint32_t expected_entry_bytes)
    : options_(options), store_(StoreOptions(options, expected_entry_bytes)) {
  if (options_.background_writes) writer_ = std::thread([this] { WriterLoop(); });
}

FlashTier::~FlashTier() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stop_ = true;
  }
  queue_cv_.notify_all();
  if (writer_.joinable()) writer_.join();
}

// Exponential mean over about 64 samples; the first sample starts it.
void FlashTier::Update(std::atomic<uint64_t>* mean, std::atomic<uint64_t>* count, uint64_t ns) {
  const uint64_t n = count->fetch_add(1, std::memory_order_relaxed);
  const uint64_t old = mean->load(std::memory_order_relaxed);
  mean->store(n == 0 ? ns : old - old / 64 + ns / 64, std::memory_order_relaxed);
}

void FlashTier::OnStorageRead(uint64_t ns) { Update(&storage_read_ns_, &storage_read_samples_, ns); }

bool FlashTier::FlashPays() const {
  if (!options_.bypass) return true;
  if (flash_hit_samples_.load(std::memory_order_relaxed) < kMinSamples ||
      storage_read_samples_.load(std::memory_order_relaxed) < kMinSamples) {
    return true;
  }
  return flash_hit_ns_.load(std::memory_order_relaxed) <
         storage_read_ns_.load(std::memory_order_relaxed);
}

bool FlashTier::Probe() {
  thread_local uint32_t calls = 0;
  return ++calls % kProbeEvery == 0;
}

bool FlashTier::Doomed(uint64_t prefix) const {
  std::shared_lock<std::shared_mutex> lock(doomed_mu_);
  return doomed_.count(prefix) > 0;
}

void FlashTier::Doom(const std::vector<uint64_t>& prefixes) {
  std::unique_lock<std::shared_mutex> lock(doomed_mu_);
  for (const uint64_t prefix : prefixes) {
    const uint64_t seq = ++doomed_seq_;
    doomed_[prefix] = seq;
    doomed_order_.emplace_back(prefix, seq);
  }
  while (doomed_order_.size() > kRememberedFiles) {
    const auto [prefix, seq] = doomed_order_.front();
    doomed_order_.pop_front();
    const auto it = doomed_.find(prefix);
    if (it != doomed_.end() && it->second == seq) doomed_.erase(it);
  }
}

void FlashTier::OnCompactionBegin(const std::vector<uint64_t>& input_prefixes) {
  if (options_.insertion_control) Doom(input_prefixes);
}

void FlashTier::OnCompactionFailed(const std::vector<uint64_t>& input_prefixes) {
  if (!options_.insertion_control) return;
  std::unique_lock<std::shared_mutex> lock(doomed_mu_);
  for (const uint64_t prefix : input_prefixes) doomed_.erase(prefix);
}

void FlashTier::OnTablesDeleted(const std::vector<uint64_t>& prefixes) {
  if (prefixes.empty()) return;
  if (options_.insertion_control) Doom(prefixes);
  if (options_.compaction_drop) {
    store_.DropFiles(prefixes);
  } else {
    store_.MarkFilesDeleted(prefixes);
  }
}

uint64_t FlashTier::InsertTimed(const ::rocksdb::Slice& key, void* value,
                                const ::rocksdb::Cache::CacheItemHelper* helper) {
  if (key.size() != 16 || helper == nullptr || helper->size_cb == nullptr ||
      helper->saveto_cb == nullptr) {
    return 0;
  }
  const uint64_t start = SteadyNowNs();
  inserts_.fetch_add(1, std::memory_order_relaxed);
  const std::string_view k(key.data(), key.size());
  if (options_.insertion_control && Doomed(Prefix(key))) {
    inserts_invalid_.fetch_add(1, std::memory_order_relaxed);
  } else if (!FlashPays() && !Probe()) {
    inserts_slow_.fetch_add(1, std::memory_order_relaxed);
  } else if (store_.Contains(k)) {
    inserts_present_.fetch_add(1, std::memory_order_relaxed);
  } else {
    const size_t size = helper->size_cb(value);
    std::string bytes(size, '\0');
    if (size > 0 && helper->saveto_cb(value, 0, size, bytes.data()).ok()) {
      if (!options_.background_writes) {
        if (store_.Append(k, bytes)) inserts_written_.fetch_add(1, std::memory_order_relaxed);
      } else {
        std::unique_lock<std::mutex> lock(queue_mu_);
        if (queued_bytes_ + size > options_.write_queue_bytes) {
          lock.unlock();
          inserts_queue_full_.fetch_add(1, std::memory_order_relaxed);
        } else {
          queued_bytes_ += size;
          queue_.push_back(Queued{std::string(k), std::move(bytes)});
          lock.unlock();
          queue_cv_.notify_one();
        }
      }
    }
  }
  const uint64_t ns = SteadyNowNs() - start;
  insert_ns_.fetch_add(ns, std::memory_order_relaxed);
  return ns;
}

void FlashTier::WriterLoop() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  for (;;) {
    queue_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;  // what is queued is a cache's: dropping it loses nothing
    std::deque<Queued> batch;
    batch.swap(queue_);
    queued_bytes_ = 0;
    writing_ = true;
    lock.unlock();
    for (Queued& q : batch) {
      // A table deleted while its block waited.
      if (options_.insertion_control && Doomed(Prefix(::rocksdb::Slice(q.key)))) {
        inserts_invalid_.fetch_add(1, std::memory_order_relaxed);
      } else if (store_.Append(q.key, q.value)) {
        inserts_written_.fetch_add(1, std::memory_order_relaxed);
      }
    }
    lock.lock();
    writing_ = false;
    drained_cv_.notify_all();
  }
}

void FlashTier::Drain() {
  if (options_.background_writes) {
    std::unique_lock<std::mutex> lock(queue_mu_);
    drained_cv_.wait(lock, [this] { return stop_ || (queue_.empty() && !writing_); });
  }
  store_.Flush();
}

std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> FlashTier::Lookup(
    const ::rocksdb::Slice& key, const ::rocksdb::Cache::CreateCallback& create_cb, bool /*wait*/,
    bool /*advise_erase*/, bool& is_in_sec_cache) {
  // A promoted block is stored again when evicted: into the compressed
  // cache, and not twice on flash (Insert skips what the index holds).
  is_in_sec_cache = false;
  if (key.size() != 16) return nullptr;
  lookups_.fetch_add(1, std::memory_order_relaxed);
  const std::string_view k(key.data(), key.size());
  if (options_.bypass) {
    if (!store_.Contains(k)) {
      bypassed_absent_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    if (!FlashPays() && !Probe()) {
      bypassed_slow_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
  }
  flash_lookups_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t start = SteadyNowNs();
  if (!store_.Lookup(k, &lookup_buffer)) return nullptr;
  void* object = nullptr;
  size_t charge = 0;
  const ::rocksdb::Status s =
      create_cb(lookup_buffer.data(), lookup_buffer.size(), &object, &charge);
  if (!s.ok() || object == nullptr) return nullptr;
  flash_hits_.fetch_add(1, std::memory_order_relaxed);
  Update(&flash_hit_ns_, &flash_hit_samples_, SteadyNowNs() - start);
  return std::make_unique<ReadyHandle>(object, charge);
}

::rocksdb::Status FlashTier::SetCapacity(size_t capacity) {
  try {
    store_.SetCapacity(capacity);
  } catch (const InputError& e) {
    return ::rocksdb::Status::InvalidArgument(e.what());
  }
  return ::rocksdb::Status::OK();
}

::rocksdb::Status FlashTier::GetCapacity(size_t& capacity) {
  capacity = store_.capacity_bytes();
  return ::rocksdb::Status::OK();
}

std::string FlashTier::GetPrintableOptions() const {
  return "    path: " + store_.file_path() +
         "\n    capacity: " + std::to_string(store_.capacity_bytes()) +
         "\n    region_bytes: " + std::to_string(options_.region_bytes) +
         "\n    bypass: " + (options_.bypass ? "1" : "0") +
         "\n    insertion_control: " + (options_.insertion_control ? "1" : "0") +
         "\n    compaction_drop: " + (options_.compaction_drop ? "1" : "0") +
         "\n    background_writes: " + (options_.background_writes ? "1" : "0") + "\n";
}

uint64_t FlashTier::PlannedDramBytes(const FlashTierOptions& options,
                                     uint32_t expected_entry_bytes) {
  FlashStoreOptions store;
  store.capacity_bytes = options.capacity_bytes;
  store.region_bytes = options.region_bytes;
  store.expected_entry_bytes = expected_entry_bytes;
  const uint64_t queue = options.background_writes ? 2 * options.write_queue_bytes : 0;
  return FlashStore::PlannedDramBytes(store) + queue;
}

uint64_t FlashTier::DramBytes() const {
  // The queue, and a batch of as much being written.
  const uint64_t queue = options_.background_writes ? 2 * options_.write_queue_bytes : 0;
  return store_.DramBytes() + queue;
}

FlashTierStats FlashTier::Stats() const {
  const FlashStoreStats store = store_.Stats();
  FlashTierStats s;
  s.enabled = true;
  s.capacity_bytes = store.capacity_bytes;
  s.dram_bytes = DramBytes();
  s.lookups = lookups_.load(std::memory_order_relaxed);
  s.flash_lookups = flash_lookups_.load(std::memory_order_relaxed);
  s.flash_hits = flash_hits_.load(std::memory_order_relaxed);
  s.bypassed_absent = bypassed_absent_.load(std::memory_order_relaxed);
  s.bypassed_slow = bypassed_slow_.load(std::memory_order_relaxed);
  s.inserts = inserts_.load(std::memory_order_relaxed);
  // With those the store refused: queued before their table was deleted.
  s.inserts_invalid = inserts_invalid_.load(std::memory_order_relaxed) + store.deleted_refusals;
  s.inserts_present = inserts_present_.load(std::memory_order_relaxed);
  s.inserts_slow = inserts_slow_.load(std::memory_order_relaxed);
  s.inserts_queue_full = inserts_queue_full_.load(std::memory_order_relaxed);
  s.inserts_written = inserts_written_.load(std::memory_order_relaxed);
  s.insert_ns = insert_ns_.load(std::memory_order_relaxed);
  s.bytes_written = store.bytes_written;
  s.entries = store.entries;
  s.invalid_entries = store.invalid_entries;
  s.dropped_entries = store.dropped_entries;
  s.mismatches = store.mismatches;
  s.read_errors = store.read_errors;
  s.index_evictions = store.index_evictions;
  s.regions_reclaimed = store.regions_reclaimed;
  s.mean_flash_hit_ns = flash_hit_ns_.load(std::memory_order_relaxed);
  s.mean_storage_read_ns = storage_read_ns_.load(std::memory_order_relaxed);
  s.flash_pays = FlashPays();
  s.direct_io = store.direct_io;
  s.failed = store.failed;
  s.failure = store.failure;
  return s;
}

}  // namespace symbiosis::rocksdb
