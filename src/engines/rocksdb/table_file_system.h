// TableFileSystem: RocksDB's file system, unchanged, except that table
// (.sst) files opened for random reads report each foreground read to the
// Adapter: which file (its number, made unique per DB), the exact offset
// and length, and whether the page cache held the bytes.
//
// With FileOptions::use_direct_reads (the engine budget) the wrapped file
// is opened with O_DIRECT and the wrapper does the alignment itself: it
// reads the aligned range into a bounce buffer and copies the block out,
// and tells RocksDB that it is not a direct-I/O file. RocksDB would
// otherwise align the request before the wrapper saw it, and the block's
// offset and size would be lost; the copy is the one RocksDB makes itself
// for direct reads. Such reads are all device reads. Buffered reads (the
// kernel budget) are probed for residency first (ResidencyProbe), exactly.
//
// Reads at Env::IO_LOW priority (compaction) and reads on RocksDB's
// background threads are not reported. A foreground device read's time
// also goes to `on_device_read` when given (the flash tier's bypass).

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_TABLE_FILE_SYSTEM_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_TABLE_FILE_SYSTEM_H_

#include <rocksdb/file_system.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engines/rocksdb/adapter.h"

namespace symbiosis::rocksdb {

// The table file number in a RocksDB file name ("000123.sst" -> 123), or
// nullopt for other files.
std::optional<uint64_t> TableFileNumber(const std::string& path);

// A file id unique among the DBs of one budget: the DB's index in the high
// 16 bits, the table file number below (Block file ids are < 2^48).
uint64_t TableFileId(uint32_t db_index, uint64_t number);

class TableFileSystem final : public ::rocksdb::FileSystemWrapper {
 public:
  // REQUIRES: `adapter` outlives every file opened.
  TableFileSystem(std::shared_ptr<::rocksdb::FileSystem> target, Adapter* adapter,
                  uint32_t db_index, std::function<void(uint64_t ns)> on_device_read = nullptr);

  const char* Name() const override { return "SymbiosisTableFileSystem"; }

  ::rocksdb::IOStatus NewRandomAccessFile(const std::string& path,
                                          const ::rocksdb::FileOptions& options,
                                          std::unique_ptr<::rocksdb::FSRandomAccessFile>* result,
                                          ::rocksdb::IODebugContext* dbg) override;

 private:
  Adapter* const adapter_;
  const uint32_t db_index_;
  const std::function<void(uint64_t)> on_device_read_;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_TABLE_FILE_SYSTEM_H_
