// TableEnv: the Env wrapper that gives Symbiosis LevelDB's table reads.
//
// LevelDB's default Env memory-maps table files, so a block read is a
// memory copy that no hook sees and that the page cache serves through
// page faults. TableEnv opens table files (*.ldb, *.sst) itself and reads
// them with pread, and classifies each read exactly:
//   kernel budget    a ResidencyProbe (cachestat(2), else mincore(2))
//                    asks the page cache whether every page of the range
//                    is resident, just before the read;
//   emulated budget  the file is opened with O_DIRECT and read through an
//                    EmulatedPageCache, whose model gives the answer.
// Table files are named by their number, which LevelDB never reuses, so
// file ids are stable across reopen. RemoveFile of a table reports the
// deletion. Schedule marks LevelDB's background (compaction) thread, whose
// reads and cache lookups are not reported. Everything else is forwarded.

#ifndef SYMBIOSIS_ENGINES_LEVELDB_TABLE_ENV_H_
#define SYMBIOSIS_ENGINES_LEVELDB_TABLE_ENV_H_

#include <leveldb/env.h>

#include <cstdint>
#include <optional>
#include <string>

#include "engines/leveldb/adapter.h"
#include "budget/emulated_page_cache.h"

namespace symbiosis::leveldb {

// The table number of a LevelDB table file name ("/db/000123.ldb" -> 123),
// or nullopt for any other file.
std::optional<uint64_t> TableFileNumber(const std::string& path);

class TableEnv final : public ::leveldb::EnvWrapper {
 public:
  // REQUIRES: `base`, `adapter` and `emulated` (null: the kernel page cache
  // holds the tables) outlive the Env and every file it opened.
  TableEnv(::leveldb::Env* base, Adapter* adapter, EmulatedPageCache* emulated);

  ::leveldb::Status NewRandomAccessFile(const std::string& path,
                                        ::leveldb::RandomAccessFile** result) override;
  ::leveldb::Status RemoveFile(const std::string& path) override;
  void Schedule(void (*function)(void* arg), void* arg) override;

 private:
  Adapter* const adapter_;
  EmulatedPageCache* const emulated_;
};

}  // namespace symbiosis::leveldb

#endif  // SYMBIOSIS_ENGINES_LEVELDB_TABLE_ENV_H_
