#include "engines/leveldb/resizable_cache.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>

namespace symbiosis::leveldb {
namespace {

// LevelDB's block cache key: cache id then block offset, fixed64 each.
constexpr size_t kBlockKeyBytes = 16;

uint64_t DecodeFixed64(const char* p) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

struct Entry : ::leveldb::Cache::Handle {
  void* value;
  void (*deleter)(const ::leveldb::Slice&, void* value);
  Entry* prev;
  Entry* next;
  size_t charge;
  size_t hash;
  uint32_t refs;  // the cache's own reference counts while in_cache
  bool in_cache;
  BlockTag tag;
  uint64_t offset;
  size_t key_length;
  char key_data[1];  // the key's bytes; the allocation holds all of them

  std::string_view key() const { return {key_data, key_length}; }
};

// A key with its hash, computed once per call: the shard and the shard's
// table both use it.
struct HashedKey {
  std::string_view key;
  size_t hash;
  bool operator==(const HashedKey& other) const { return key == other.key; }
};
struct HashOfKey {
  size_t operator()(const HashedKey& k) const { return k.hash; }
};

Entry* AsEntry(::leveldb::Cache::Handle* handle) { return static_cast<Entry*>(handle); }

HashedKey Hashed(const ::leveldb::Slice& key) {
  const std::string_view view(key.data(), key.size());
  return {view, std::hash<std::string_view>{}(view)};
}
HashedKey Hashed(const Entry* e) { return {e->key(), e->hash}; }

}  // namespace

// One shard: LevelDB's LRU design. Invariants (under mu_):
//  - table_ holds exactly the entries with in_cache; usage_ sums their
//    charges.
//  - An entry in the cache is on lru_ (refs == 1: only the cache holds it;
//    evictable, least recent at lru_.next) or on in_use_ (refs >= 2).
//  - An entry out of the cache is on no list and is freed when refs
//    reaches 0.
class ResizableCache::Shard {
 public:
  Shard() {
    lru_.next = lru_.prev = &lru_;
    in_use_.next = in_use_.prev = &in_use_;
  }
  ~Shard() {
    for (Entry* e = lru_.next; e != &lru_;) {
      Entry* next = e->next;
      e->in_cache = false;
      Unref(e);
      e = next;
    }
  }

  void SetCapacity(size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    capacity_ = capacity;
    EvictToFit();
  }

  Entry* Insert(Entry* e) {
    std::lock_guard<std::mutex> lock(mu_);
    e->refs = 1;  // the caller's handle
    e->in_cache = false;
    if (capacity_ > 0) {
      ++e->refs;  // the cache's
      e->in_cache = true;
      Append(&in_use_, e);
      usage_ += e->charge;
      const auto it = table_.find(Hashed(e));
      if (it != table_.end()) {
        // The table's key views the old entry's bytes: re-key, then free.
        Entry* old = it->second;
        table_.erase(it);
        Detach(old);
      }
      table_.emplace(Hashed(e), e);
      EvictToFit();
    }
    return e;
  }

  Entry* Lookup(const HashedKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = table_.find(key);
    if (it == table_.end()) return nullptr;
    Ref(it->second);
    return it->second;
  }

  void Release(Entry* e) {
    std::lock_guard<std::mutex> lock(mu_);
    Unref(e);
  }

  void Erase(const HashedKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = table_.find(key);
    if (it == table_.end()) return;
    Entry* e = it->second;
    table_.erase(it);
    Detach(e);
  }

  void Prune() {
    std::lock_guard<std::mutex> lock(mu_);
    while (lru_.next != &lru_) Evict(lru_.next);
  }

  size_t usage() const {
    std::lock_guard<std::mutex> lock(mu_);
    return usage_;
  }

 private:
  void Ref(Entry* e) {
    if (e->refs == 1 && e->in_cache) {  // leaves the eviction order
      Remove(e);
      Append(&in_use_, e);
    }
    ++e->refs;
  }

  void Unref(Entry* e) {
    --e->refs;
    if (e->refs == 0) {
      (*e->deleter)(::leveldb::Slice(e->key_data, e->key_length), e->value);
      e->~Entry();
      std::free(e);
    } else if (e->in_cache && e->refs == 1) {  // back in the eviction order
      Remove(e);
      Append(&lru_, e);
      // A shrink while it was pinned may have left the shard over capacity.
      EvictToFit();
    }
  }

  // Takes a cached entry out of the cache (its table slot is gone already).
  void Detach(Entry* e) {
    e->in_cache = false;
    usage_ -= e->charge;
    Remove(e);
    Unref(e);
  }

  void Evict(Entry* e) {
    table_.erase(Hashed(e));
    Detach(e);
  }

  void EvictToFit() {
    while (usage_ > capacity_ && lru_.next != &lru_) Evict(lru_.next);
  }

  static void Remove(Entry* e) {
    e->next->prev = e->prev;
    e->prev->next = e->next;
  }
  static void Append(Entry* list, Entry* e) {  // newest at list->prev
    e->next = list;
    e->prev = list->prev;
    e->prev->next = e;
    e->next->prev = e;
  }

  mutable std::mutex mu_;
  size_t capacity_ = 0;
  size_t usage_ = 0;
  Entry lru_{};
  Entry in_use_{};
  std::unordered_map<HashedKey, Entry*, HashOfKey> table_;
};

ResizableCache::ResizableCache(size_t capacity, BlockObserver* observer)
    : capacity_(capacity), observer_(observer) {
  for (auto& shard : shards_) shard = std::make_unique<Shard>();
  SetCapacity(capacity);
}

ResizableCache::~ResizableCache() = default;

void ResizableCache::SetCapacity(size_t capacity) {
  capacity_.store(capacity, std::memory_order_relaxed);
  const size_t per_shard = (capacity + kShards - 1) / kShards;
  for (auto& shard : shards_) shard->SetCapacity(per_shard);
}

::leveldb::Cache::Handle* ResizableCache::Insert(
    const ::leveldb::Slice& key, void* value, size_t charge,
    void (*deleter)(const ::leveldb::Slice& key, void* value)) {
  void* memory = std::malloc(sizeof(Entry) - 1 + key.size());
  if (memory == nullptr) throw std::bad_alloc();
  Entry* e = new (memory) Entry{};
  e->value = value;
  e->deleter = deleter;
  e->charge = charge;
  e->hash = Hashed(key).hash;
  e->key_length = key.size();
  std::memcpy(e->key_data, key.data(), key.size());
  if (key.size() == kBlockKeyBytes) {
    e->offset = DecodeFixed64(key.data() + 8);
    if (observer_ != nullptr) e->tag = observer_->OnInsert(e->offset, charge);
  }
  return ShardOf(static_cast<uint32_t>(e->hash >> 32)).Insert(e);
}

::leveldb::Cache::Handle* ResizableCache::Lookup(const ::leveldb::Slice& key) {
  const HashedKey hashed = Hashed(key);
  Entry* e = ShardOf(static_cast<uint32_t>(hashed.hash >> 32)).Lookup(hashed);
  if (e != nullptr && e->tag.tracked && observer_ != nullptr) {
    observer_->OnHit(e->tag, e->offset, e->charge);
  }
  return e;
}

void ResizableCache::Release(Handle* handle) {
  Entry* e = AsEntry(handle);
  ShardOf(static_cast<uint32_t>(e->hash >> 32)).Release(e);
}

void* ResizableCache::Value(Handle* handle) { return AsEntry(handle)->value; }

void ResizableCache::Erase(const ::leveldb::Slice& key) {
  const HashedKey hashed = Hashed(key);
  ShardOf(static_cast<uint32_t>(hashed.hash >> 32)).Erase(hashed);
}

uint64_t ResizableCache::NewId() { return last_id_.fetch_add(1) + 1; }

void ResizableCache::Prune() {
  for (auto& shard : shards_) shard->Prune();
}

size_t ResizableCache::TotalCharge() const {
  size_t total = 0;
  for (const auto& shard : shards_) total += shard->usage();
  return total;
}

}  // namespace symbiosis::leveldb
