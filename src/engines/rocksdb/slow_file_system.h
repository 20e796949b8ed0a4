// SlowFileSystem: RocksDB's file system, with reads of table (.sst) files
// made as slow as a hard disk's or network storage's, so that the flash
// tier's benchmark runs in SAS-Cache's setting (tables on storage 12-95x
// slower than flash) on one machine with one local disk. Emulated, and
// said so wherever it is used; a DB on a real slow device needs none.
//
// Each read first takes one of `concurrency` slots (a disk arm serves one
// read at a time; 0: unlimited), then is done on the device, then waits
// until it has taken its latency, drawn per read from a log-normal with
// the given median and p99 (a constant when they are equal), and until
// its bytes have passed a bandwidth cap shared by all reads (a reservation
// on one timeline: a read of n bytes holds it for n / bytes_per_second).
// Compaction reads are slowed as much as foreground ones: they read the
// same device. Writes are not slowed.
//
// Thread-safe.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_SLOW_FILE_SYSTEM_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_SLOW_FILE_SYSTEM_H_

#include <rocksdb/file_system.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "symbiosis/rocksdb.h"

namespace symbiosis::rocksdb {

// The latency and bandwidth every slowed read shares.
class SlowDevice {
 public:
  // Throws InputError for a p99 below the median or a median of 0.
  explicit SlowDevice(const SlowStorageOptions& options);

  // Around one read of `bytes`: Begin before it (waits for a slot), End
  // after it, with the steady time Begin returned (waits out the rest).
  uint64_t Begin();
  void End(uint64_t begin_ns, uint64_t bytes);

  // A latency drawn for one read, in ns (for tests).
  uint64_t DrawLatency();

 private:
  const SlowStorageOptions options_;
  const double sigma_;  // of the log-normal's log
  std::mutex mu_;
  std::condition_variable slot_cv_;
  uint32_t busy_ = 0;             // guarded by mu_
  uint64_t transfer_free_ns_ = 0;  // guarded by mu_: when the bandwidth is next free
  std::atomic<uint64_t> draws_{0};
};

class SlowFileSystem final : public ::rocksdb::FileSystemWrapper {
 public:
  SlowFileSystem(std::shared_ptr<::rocksdb::FileSystem> target, std::shared_ptr<SlowDevice> device);

  const char* Name() const override { return "SymbiosisSlowFileSystem"; }

  ::rocksdb::IOStatus NewRandomAccessFile(const std::string& path,
                                          const ::rocksdb::FileOptions& options,
                                          std::unique_ptr<::rocksdb::FSRandomAccessFile>* result,
                                          ::rocksdb::IODebugContext* dbg) override;

 private:
  const std::shared_ptr<SlowDevice> device_;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_SLOW_FILE_SYSTEM_H_
