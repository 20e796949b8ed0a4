// What RocksDB's LRUCache charges for an entry beyond the charge given to
// Insert (kFullChargeCacheMetadata, RocksDB's default): its LRUHandle with
// the key inline, as malloc rounds it. The engine's block-cache keys are
// 16 bytes; RocksDB 7.8 on Debian's glibc charges 88 bytes for one. The
// compressed cache's inner LRUCache charges the same, so the model of the
// two tiers (RocksDbCacheModelOptions::entry_metadata_bytes) takes this.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_ENTRY_METADATA_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_ENTRY_METADATA_H_

#include <cstdint>

namespace symbiosis::rocksdb {

// Measured once, on a throwaway cache, for a 16-byte key.
uint32_t EntryMetadataBytes();

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_ENTRY_METADATA_H_
