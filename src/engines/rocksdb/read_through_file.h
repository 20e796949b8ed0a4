// Pieces the RocksDB plugin's file wrappers share.
//
// ReadThroughFile: a wrapped random-access file whose MultiRead and
// ReadAsync are served at once by its own Read, one request after the
// other, so that a wrapper that acts in Read (reports, delays) sees every
// read there.
//
// AlignedReadBuffer: a thread's buffer aligned for O_DIRECT reads, grown
// as needed; Get returns null when memory runs out.

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_READ_THROUGH_FILE_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_READ_THROUGH_FILE_H_

#include <rocksdb/file_system.h>

#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>

namespace symbiosis::rocksdb {

class ReadThroughFile : public ::rocksdb::FSRandomAccessFileOwnerWrapper {
 public:
  explicit ReadThroughFile(std::unique_ptr<::rocksdb::FSRandomAccessFile> target)
      : FSRandomAccessFileOwnerWrapper(std::move(target)) {}

  ::rocksdb::IOStatus MultiRead(::rocksdb::FSReadRequest* reqs, size_t num_reqs,
                                const ::rocksdb::IOOptions& options,
                                ::rocksdb::IODebugContext* dbg) override {
    for (size_t i = 0; i < num_reqs; ++i) {
      reqs[i].status = Read(reqs[i].offset, reqs[i].len, options, &reqs[i].result,
                            reqs[i].scratch, dbg);
    }
    return ::rocksdb::IOStatus::OK();
  }

  ::rocksdb::IOStatus ReadAsync(::rocksdb::FSReadRequest& req, const ::rocksdb::IOOptions& opts,
                                std::function<void(const ::rocksdb::FSReadRequest&, void*)> cb,
                                void* cb_arg, void** io_handle, ::rocksdb::IOHandleDeleter* del_fn,
                                ::rocksdb::IODebugContext* dbg) override {
    req.status = Read(req.offset, req.len, opts, &req.result, req.scratch, dbg);
    if (io_handle != nullptr) *io_handle = nullptr;
    if (del_fn != nullptr) *del_fn = nullptr;
    cb(req, cb_arg);
    return ::rocksdb::IOStatus::OK();
  }
};

class AlignedReadBuffer {
 public:
  static constexpr size_t kAlignment = 4096;

  AlignedReadBuffer() = default;
  AlignedReadBuffer(const AlignedReadBuffer&) = delete;
  AlignedReadBuffer& operator=(const AlignedReadBuffer&) = delete;
  ~AlignedReadBuffer() { std::free(data_); }

  char* Get(size_t bytes) {
    if (bytes > size_) {
      std::free(data_);
      size_ = (bytes + kAlignment - 1) / kAlignment * kAlignment;
      if (posix_memalign(reinterpret_cast<void**>(&data_), kAlignment, size_) != 0) {
        data_ = nullptr;
        size_ = 0;
      }
    }
    return data_;
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_READ_THROUGH_FILE_H_
