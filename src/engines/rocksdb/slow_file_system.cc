#include "engines/rocksdb/slow_file_system.h"

#include <time.h>

#include <cmath>
#include <random>

#include "base/hash.h"
#include "engines/rocksdb/read_through_file.h"
#include "engines/rocksdb/table_file_system.h"
#include "symbiosis/error.h"
#include "symbiosis/sched_times.h"

namespace symbiosis::rocksdb {
namespace {

// The standard normal's 0.99 quantile.
constexpr double kZ99 = 2.3263478740408408;

void SleepUntil(uint64_t deadline_ns) {
  for (;;) {
    const uint64_t now = SteadyNowNs();
    if (now >= deadline_ns) return;
    const uint64_t left = deadline_ns - now;
    timespec ts{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
}

// Each read takes the device's time; MultiRead and ReadAsync pass through Read.
class SlowFile final : public ReadThroughFile {
 public:
  SlowFile(std::unique_ptr<::rocksdb::FSRandomAccessFile> target, SlowDevice* device)
      : ReadThroughFile(std::move(target)), device_(device) {}

  ::rocksdb::IOStatus Read(uint64_t offset, size_t n, const ::rocksdb::IOOptions& options,
                           ::rocksdb::Slice* result, char* scratch,
                           ::rocksdb::IODebugContext* dbg) const override {
    const uint64_t begin = device_->Begin();
    const ::rocksdb::IOStatus s = target()->Read(offset, n, options, result, scratch, dbg);
    device_->End(begin, n);
    return s;
  }

 private:
  SlowDevice* const device_;
};

}  // namespace

SlowStorageOptions SlowStoragePreset(const std::string& name) {
  SlowStorageOptions o;
  if (name == "hdd") {
    o.median_ns = 4'000'000;
    o.p99_ns = 12'000'000;
    o.bytes_per_second = 150'000'000;
    o.concurrency = 1;
  } else if (name == "network") {
    o.median_ns = 1'000'000;
    o.p99_ns = 5'000'000;
    o.bytes_per_second = 1'250'000'000;
  } else if (name != "none") {
    throw InputError("unknown slow-storage preset '" + name +
                     "'; use hdd, network or none, or give a latency");
  }
  return o;
}

SlowDevice::SlowDevice(const SlowStorageOptions& options)
    : options_(options),
      sigma_(options.p99_ns > options.median_ns && options.median_ns > 0
                 ? std::log(static_cast<double>(options.p99_ns) / options.median_ns) / kZ99
                 : 0.0) {
  if (options_.median_ns == 0) {
    throw InputError("slow storage with a median latency of 0; give one, or no slow storage");
  }
  if (options_.p99_ns != 0 && options_.p99_ns < options_.median_ns) {
    throw InputError("slow storage p99 latency " + std::to_string(options_.p99_ns) +
                     " ns is below its median " + std::to_string(options_.median_ns) +
                     " ns; give a p99 at or above the median");
  }
}

uint64_t SlowDevice::DrawLatency() {
  if (sigma_ == 0.0) return options_.median_ns;
  thread_local std::mt19937_64 rng;
  thread_local bool seeded = false;
  if (!seeded) {
    rng.seed(Hash64(options_.seed, draws_.fetch_add(1, std::memory_order_relaxed)));
    seeded = true;
  }
  std::normal_distribution<double> normal(0.0, 1.0);
  return static_cast<uint64_t>(options_.median_ns * std::exp(sigma_ * normal(rng)));
}

uint64_t SlowDevice::Begin() {
  if (options_.concurrency > 0) {
    std::unique_lock<std::mutex> lock(mu_);
    slot_cv_.wait(lock, [this] { return busy_ < options_.concurrency; });
    ++busy_;
  }
  return SteadyNowNs();
}

void SlowDevice::End(uint64_t begin_ns, uint64_t bytes) {
  uint64_t deadline = begin_ns + DrawLatency();
  if (options_.bytes_per_second > 0) {
    const uint64_t transfer =
        static_cast<uint64_t>(static_cast<double>(bytes) * 1e9 / options_.bytes_per_second);
    std::lock_guard<std::mutex> lock(mu_);
    const uint64_t from = std::max(transfer_free_ns_, begin_ns);
    transfer_free_ns_ = from + transfer;
    deadline = std::max(deadline, transfer_free_ns_);
  }
  SleepUntil(deadline);
  if (options_.concurrency > 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --busy_;
    }
    slot_cv_.notify_one();
  }
}

SlowFileSystem::SlowFileSystem(std::shared_ptr<::rocksdb::FileSystem> target,
                               std::shared_ptr<SlowDevice> device)
    : FileSystemWrapper(std::move(target)), device_(std::move(device)) {}

::rocksdb::IOStatus SlowFileSystem::NewRandomAccessFile(
    const std::string& path, const ::rocksdb::FileOptions& options,
    std::unique_ptr<::rocksdb::FSRandomAccessFile>* result, ::rocksdb::IODebugContext* dbg) {
  ::rocksdb::IOStatus s = target()->NewRandomAccessFile(path, options, result, dbg);
  if (s.ok() && TableFileNumber(path)) {
    *result = std::make_unique<SlowFile>(std::move(*result), device_.get());
  }
  return s;
}

}  // namespace symbiosis::rocksdb
