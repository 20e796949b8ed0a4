#include "engines/leveldb/table_env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "budget/residency.h"
#include "model/table_file_name.h"
#include "symbiosis/sched_times.h"

namespace symbiosis::leveldb {
namespace {

::leveldb::Status PosixError(const std::string& context, int error) {
  if (error == ENOENT) return ::leveldb::Status::NotFound(context, std::strerror(error));
  return ::leveldb::Status::IOError(context, std::strerror(error));
}

// A table file read with pread through the kernel page cache.
class KernelTableFile final : public ::leveldb::RandomAccessFile {
 public:
  KernelTableFile(std::string path, int fd, uint64_t file_id, Adapter* adapter)
      : path_(std::move(path)), fd_(fd), file_id_(file_id), adapter_(adapter), probe_(fd) {}
  ~KernelTableFile() override { close(fd_); }

  ::leveldb::Status Read(uint64_t offset, size_t n, ::leveldb::Slice* result,
                         char* scratch) const override {
    const bool report = n > 0 && !Adapter::IsBackgroundThread();
    const bool resident = report && probe_.IsResident(offset, n);
    const std::optional<SchedTimes> sched =
        report ? SampledThreadSchedTimes(
                     resident ? SampleSite::kSecondTierHit : SampleSite::kDeviceRead,
                     adapter_->link().SchedSampleSlowdown())
               : std::nullopt;
    const uint64_t start = report ? SteadyNowNs() : 0;
    size_t got = 0;
    while (got < n) {
      const ssize_t r = pread(fd_, scratch + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        *result = ::leveldb::Slice(scratch, 0);
        return PosixError(path_, errno);
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    *result = ::leveldb::Slice(scratch, got);
    if (report) adapter_->OnRead(file_id_, offset, n, resident, start, sched);
    return ::leveldb::Status::OK();
  }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t file_id_;
  Adapter* const adapter_;
  const ResidencyProbe probe_;
};

// A table file read with O_DIRECT through the emulated page cache.
class EmulatedTableFile final : public ::leveldb::RandomAccessFile {
 public:
  EmulatedTableFile(std::string path, int fd, uint64_t bytes, uint64_t file_id,
                    Adapter* adapter, EmulatedPageCache* cache)
      : path_(std::move(path)),
        fd_(fd),
        bytes_(bytes),
        file_id_(file_id),
        adapter_(adapter),
        cache_(cache) {}
  ~EmulatedTableFile() override { close(fd_); }

  ::leveldb::Status Read(uint64_t offset, size_t n, ::leveldb::Slice* result,
                         char* scratch) const override {
    if (n == 0) {
      *result = ::leveldb::Slice(scratch, 0);
      return ::leveldb::Status::OK();
    }
    const uint64_t start = SteadyNowNs();
    const EmulatedRead read = cache_->Read(file_id_, fd_, bytes_, offset, n, scratch);
    if (read.error != 0) {
      *result = ::leveldb::Slice(scratch, 0);
      return PosixError(path_, read.error);
    }
    *result = ::leveldb::Slice(scratch, read.bytes);
    adapter_->OnRead(file_id_, offset, n, read.hit, start, read.miss_start);
    return ::leveldb::Status::OK();
  }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t bytes_;
  const uint64_t file_id_;
  Adapter* const adapter_;
  EmulatedPageCache* const cache_;
};

struct BackgroundWork {
  void (*function)(void*);
  void* arg;
};

void RunAsBackground(void* work) {
  const BackgroundWork w = *static_cast<BackgroundWork*>(work);
  delete static_cast<BackgroundWork*>(work);
  Adapter::MarkBackgroundThread();
  w.function(w.arg);
}

}  // namespace

std::optional<uint64_t> TableFileNumber(const std::string& path) {
  return symbiosis::TableFileNumber(path, {".ldb", ".sst"});
}

TableEnv::TableEnv(::leveldb::Env* base, Adapter* adapter, EmulatedPageCache* emulated)
    : EnvWrapper(base), adapter_(adapter), emulated_(emulated) {}

::leveldb::Status TableEnv::NewRandomAccessFile(const std::string& path,
                                                ::leveldb::RandomAccessFile** result) {
  *result = nullptr;
  const std::optional<uint64_t> number = TableFileNumber(path);
  if (!number) return target()->NewRandomAccessFile(path, result);
  int flags = O_RDONLY | O_CLOEXEC;
  int fd = -1;
  if (emulated_ != nullptr) {
    fd = open(path.c_str(), flags | O_DIRECT);
    // Some file systems (tmpfs) refuse O_DIRECT; the emulated cache still
    // decides hits, the kernel then merely keeps a copy it never serves
    // from our point of view.
    if (fd < 0 && errno == EINVAL) fd = open(path.c_str(), flags);
  } else {
    fd = open(path.c_str(), flags);
  }
  if (fd < 0) return PosixError(path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return PosixError(path, error);
  }
  const uint64_t bytes = static_cast<uint64_t>(st.st_size);
  adapter_->OnFileOpened(*number, bytes);
  try {
    if (emulated_ != nullptr) {
      *result = new EmulatedTableFile(path, fd, bytes, *number, adapter_, emulated_);
    } else {
      *result = new KernelTableFile(path, fd, *number, adapter_);
    }
  } catch (const std::exception& e) {
    close(fd);
    return ::leveldb::Status::IOError(path, e.what());
  }
  return ::leveldb::Status::OK();
}

::leveldb::Status TableEnv::RemoveFile(const std::string& path) {
  const ::leveldb::Status status = target()->RemoveFile(path);
  const std::optional<uint64_t> number = TableFileNumber(path);
  if (status.ok() && number) {
    adapter_->OnFileDeleted(*number);
    if (emulated_ != nullptr) emulated_->DropFile(*number);
  }
  return status;
}

void TableEnv::Schedule(void (*function)(void* arg), void* arg) {
  target()->Schedule(&RunAsBackground, new BackgroundWork{function, arg});
}

}  // namespace symbiosis::leveldb
