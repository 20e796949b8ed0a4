// CacheKeyMap: which table file and offset a RocksDB block-cache key names.
//
// RocksDB 7.8 keys a block by 16 bytes: an 8-byte prefix unique to the
// table file, and 8 bytes that are a per-file constant XOR (offset >> 2)
// (cache/cache_key.h, not installed). Neither the file number nor the
// constant can be read through the public API, so both are learned: on a
// cache miss the block's read follows on the same thread, and the pair
// (key, file, offset) gives the file for the prefix and the constant as
// key_low ^ (offset >> 2). From then on every key of that file maps to
// its file and offset with one table probe and an XOR. (Direct reads keep
// their exact offsets: TableFileSystem aligns them itself.)
//
// Reads of the map are lock-free (acquire loads of an open-addressing
// table); learning takes a mutex. A table holds kCapacity files; past that
// new files are not learned (their accesses report as unknown).

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_CACHE_KEY_MAP_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_CACHE_KEY_MAP_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace symbiosis::rocksdb {

struct KeyLocation {
  uint64_t file_id = 0;
  uint64_t offset = 0;
};

class CacheKeyMap {
 public:
  static constexpr size_t kCapacity = size_t{1} << 16;

  CacheKeyMap();

  // The 16-byte key's file and offset, or nullopt if its file is unknown
  // (not yet read, forgotten, or the key is not 16 bytes).
  std::optional<KeyLocation> Find(std::string_view key) const;

  // `key` is the block at `offset` of `file_id`. A prefix already known
  // keeps its first mapping.
  void Learn(std::string_view key, uint64_t file_id, uint64_t offset);

  // Forgets every prefix of `file_id` (the file was deleted) and returns
  // them.
  std::vector<uint64_t> Forget(uint64_t file_id);
  // The prefixes learned for `file_id` (a scan of the table, for events
  // as rare as compactions).
  std::vector<uint64_t> PrefixesOf(uint64_t file_id) const;

  // The offset Find gives for a block at `offset`: RocksDB keys offset >> 2,
  // so it is rounded down to 4 bytes. A block read is reported at this
  // offset too, or its reads and its hits would be two blocks to the
  // ghosts.
  static uint64_t KeyedOffset(uint64_t offset) { return offset & ~uint64_t{3}; }

  // The key's 8-byte file prefix and its other 8 bytes, and the key of
  // both. REQUIRES: key.size() == 16.
  static uint64_t Prefix(std::string_view key);
  static uint64_t Low(std::string_view key);
  static std::string Key(uint64_t prefix, uint64_t low);

 private:
  // A slot is free (prefix 0), taken, or forgotten (file_id kForgotten);
  // prefix is published last (release) so a reader that sees it sees the
  // rest.
  struct Slot {
    std::atomic<uint64_t> prefix{0};
    std::atomic<uint64_t> file_id{0};
    std::atomic<uint64_t> base{0};
  };
  static constexpr uint64_t kForgotten = ~uint64_t{0};

  const Slot* Probe(uint64_t prefix) const;

  mutable std::mutex learn_mu_;
  std::unique_ptr<std::array<Slot, kCapacity>> slots_;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_CACHE_KEY_MAP_H_
