// Values for tests that drive RocksDB's caches directly: std::strings that
// a secondary cache can save (their bytes) and that the cache frees.

#ifndef SYMBIOSIS_TESTING_ROCKSDB_STRING_VALUES_H_
#define SYMBIOSIS_TESTING_ROCKSDB_STRING_VALUES_H_

#include <rocksdb/cache.h>

#include <cstring>
#include <string>

namespace symbiosis::testing {

inline size_t StringSize(void* obj) { return static_cast<std::string*>(obj)->size(); }

inline ::rocksdb::Status SaveString(void* from, size_t offset, size_t length, void* out) {
  std::memcpy(out, static_cast<std::string*>(from)->data() + offset, length);
  return ::rocksdb::Status::OK();
}

inline void DeleteString(const ::rocksdb::Slice&, void* value) {
  delete static_cast<std::string*>(value);
}

inline const ::rocksdb::Cache::CacheItemHelper kStringHelper(StringSize, SaveString,
                                                             DeleteString);

}  // namespace symbiosis::testing

#endif  // SYMBIOSIS_TESTING_ROCKSDB_STRING_VALUES_H_
