#include "engines/rocksdb/table_file_system.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "budget/residency.h"
#include "engines/rocksdb/read_through_file.h"
#include "symbiosis/sched_times.h"
#include "model/table_file_name.h"

namespace symbiosis::rocksdb {
namespace {

constexpr size_t kDirectAlignment = AlignedReadBuffer::kAlignment;

thread_local AlignedReadBuffer bounce;

class TableFile final : public ReadThroughFile {
 public:
  TableFile(std::unique_ptr<::rocksdb::FSRandomAccessFile> target, Adapter* adapter,
            std::function<void(uint64_t)> on_device_read, uint64_t file_id, bool direct,
            int probe_fd)
      : ReadThroughFile(std::move(target)),
        adapter_(adapter),
        on_device_read_(std::move(on_device_read)),
        file_id_(file_id),
        direct_(direct),
        probe_fd_(probe_fd),
        probe_(probe_fd >= 0 ? std::make_optional<ResidencyProbe>(probe_fd) : std::nullopt) {}
  ~TableFile() override {
    if (probe_fd_ >= 0) close(probe_fd_);
  }

  ::rocksdb::IOStatus Read(uint64_t offset, size_t n, const ::rocksdb::IOOptions& options,
                           ::rocksdb::Slice* result, char* scratch,
                           ::rocksdb::IODebugContext* dbg) const override {
    const bool report = n > 0 && options.rate_limiter_priority != ::rocksdb::Env::IO_LOW &&
                        Adapter::Foreground();
    const bool resident = report && !direct_ && probe_ && probe_->IsResident(offset, n);
    const std::optional<SchedTimes> sched =
        report ? SampledThreadSchedTimes(
                     resident ? SampleSite::kSecondTierHit : SampleSite::kDeviceRead,
                     adapter_->link().SchedSampleSlowdown())
               : std::nullopt;
    const uint64_t start = report ? SteadyNowNs() : 0;
    const ::rocksdb::IOStatus s =
        direct_ ? AlignedRead(offset, n, options, result, scratch, dbg)
                : target()->Read(offset, n, options, result, scratch, dbg);
    if (s.ok() && report) {
      if (!resident && on_device_read_) on_device_read_(SteadyNowNs() - start);
      adapter_->OnRead(file_id_, offset, n, resident, start, sched);
    }
    return s;
  }

  // The alignment is done here (see the header).
  bool use_direct_io() const override { return false; }
  size_t GetRequiredBufferAlignment() const override { return 1; }

 private:
  ::rocksdb::IOStatus AlignedRead(uint64_t offset, size_t n, const ::rocksdb::IOOptions& options,
                                  ::rocksdb::Slice* result, char* scratch,
                                  ::rocksdb::IODebugContext* dbg) const {
    const uint64_t first = offset / kDirectAlignment * kDirectAlignment;
    const uint64_t end =
        (offset + n + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
    char* buffer = bounce.Get(end - first);
    if (buffer == nullptr) return ::rocksdb::IOStatus::NoSpace("no memory for a direct read");
    ::rocksdb::Slice got;
    const ::rocksdb::IOStatus s = target()->Read(first, end - first, options, &got, buffer, dbg);
    if (!s.ok()) return s;
    const uint64_t skip = offset - first;
    const size_t copied = got.size() > skip ? std::min<size_t>(n, got.size() - skip) : 0;
    if (copied > 0) std::memcpy(scratch, got.data() + skip, copied);
    *result = ::rocksdb::Slice(scratch, copied);
    return s;
  }

  Adapter* const adapter_;
  const std::function<void(uint64_t)> on_device_read_;
  const uint64_t file_id_;
  const bool direct_;
  const int probe_fd_;
  const std::optional<ResidencyProbe> probe_;
};

}  // namespace

std::optional<uint64_t> TableFileNumber(const std::string& path) {
  return symbiosis::TableFileNumber(path, {".sst"});
}

uint64_t TableFileId(uint32_t db_index, uint64_t number) {
  return (uint64_t{db_index} << 32) | (number & 0xffffffffu);
}

TableFileSystem::TableFileSystem(std::shared_ptr<::rocksdb::FileSystem> target,
                                 Adapter* adapter, uint32_t db_index,
                                 std::function<void(uint64_t ns)> on_device_read)
    : FileSystemWrapper(target),
      adapter_(adapter),
      db_index_(db_index),
      on_device_read_(std::move(on_device_read)) {}

::rocksdb::IOStatus TableFileSystem::NewRandomAccessFile(
    const std::string& path, const ::rocksdb::FileOptions& options,
    std::unique_ptr<::rocksdb::FSRandomAccessFile>* result, ::rocksdb::IODebugContext* dbg) {
  ::rocksdb::IOStatus s = target()->NewRandomAccessFile(path, options, result, dbg);
  const std::optional<uint64_t> number = TableFileNumber(path);
  if (!s.ok() || !number) return s;
  const uint64_t file_id = TableFileId(db_index_, *number);
  int probe_fd = -1;
  if (!options.use_direct_reads) {
    probe_fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (probe_fd < 0) return ::rocksdb::IOStatus::IOError(path + ": cannot open for probing: " +
                                                          std::strerror(errno));
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0) adapter_->OnFileOpened(file_id, static_cast<uint64_t>(st.st_size));
  *result = std::make_unique<TableFile>(std::move(*result), adapter_, on_device_read_, file_id,
                                        options.use_direct_reads, probe_fd);
  return s;
}

}  // namespace symbiosis::rocksdb
