#include "engines/rocksdb/cache_key_map.h"

#include <cstring>

#include "base/hash.h"

namespace symbiosis::rocksdb {
namespace {

constexpr size_t kMask = CacheKeyMap::kCapacity - 1;

size_t Home(uint64_t prefix) { return static_cast<size_t>(Mix64(prefix)) & kMask; }

}  // namespace

CacheKeyMap::CacheKeyMap() : slots_(std::make_unique<std::array<Slot, kCapacity>>()) {}

uint64_t CacheKeyMap::Prefix(std::string_view key) {
  uint64_t v;
  std::memcpy(&v, key.data(), 8);
  return v;
}

std::string CacheKeyMap::Key(uint64_t prefix, uint64_t low) {
  std::string key(16, '\0');
  std::memcpy(key.data(), &prefix, 8);
  std::memcpy(key.data() + 8, &low, 8);
  return key;
}

uint64_t CacheKeyMap::Low(std::string_view key) {
  uint64_t v;
  std::memcpy(&v, key.data() + 8, 8);
  return v;
}

const CacheKeyMap::Slot* CacheKeyMap::Probe(uint64_t prefix) const {
  for (size_t i = Home(prefix), n = 0; n < kCapacity; i = (i + 1) & kMask, ++n) {
    const Slot& slot = (*slots_)[i];
    const uint64_t p = slot.prefix.load(std::memory_order_acquire);
    if (p == prefix) return &slot;
    if (p == 0) return nullptr;
  }
  return nullptr;
}

std::optional<KeyLocation> CacheKeyMap::Find(std::string_view key) const {
  if (key.size() != 16) return std::nullopt;
  const uint64_t prefix = Prefix(key);
  if (prefix == 0) return std::nullopt;
  const Slot* slot = Probe(prefix);
  if (slot == nullptr) return std::nullopt;
  const uint64_t file_id = slot->file_id.load(std::memory_order_relaxed);
  if (file_id == kForgotten) return std::nullopt;
  const uint64_t base = slot->base.load(std::memory_order_relaxed);
  return KeyLocation{file_id, (Low(key) ^ base) << 2};
}

void CacheKeyMap::Learn(std::string_view key, uint64_t file_id, uint64_t offset) {
  if (key.size() != 16 || file_id == kForgotten) return;
  const uint64_t prefix = Prefix(key);
  if (prefix == 0) return;
  const uint64_t base = Low(key) ^ (offset >> 2);
  std::lock_guard<std::mutex> lock(learn_mu_);
  for (size_t i = Home(prefix), n = 0; n < kCapacity; i = (i + 1) & kMask, ++n) {
    Slot& slot = (*slots_)[i];
    const uint64_t p = slot.prefix.load(std::memory_order_relaxed);
    if (p == prefix) return;  // known: the first mapping stays
    if (p != 0) continue;
    slot.file_id.store(file_id, std::memory_order_relaxed);
    slot.base.store(base, std::memory_order_relaxed);
    slot.prefix.store(prefix, std::memory_order_release);
    return;
  }
}

std::vector<uint64_t> CacheKeyMap::Forget(uint64_t file_id) {
  std::vector<uint64_t> prefixes;
  std::lock_guard<std::mutex> lock(learn_mu_);
  for (Slot& slot : *slots_) {
    const uint64_t prefix = slot.prefix.load(std::memory_order_relaxed);
    if (prefix != 0 && slot.file_id.load(std::memory_order_relaxed) == file_id) {
      slot.file_id.store(kForgotten, std::memory_order_relaxed);
      prefixes.push_back(prefix);
    }
  }
  return prefixes;
}

std::vector<uint64_t> CacheKeyMap::PrefixesOf(uint64_t file_id) const {
  std::vector<uint64_t> prefixes;
  std::lock_guard<std::mutex> lock(learn_mu_);
  for (const Slot& slot : *slots_) {
    const uint64_t prefix = slot.prefix.load(std::memory_order_relaxed);
    if (prefix != 0 && slot.file_id.load(std::memory_order_relaxed) == file_id) {
      prefixes.push_back(prefix);
    }
  }
  return prefixes;
}

}  // namespace symbiosis::rocksdb
