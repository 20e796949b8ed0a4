// What the drivers write and ask: keys "user" + 12 digits, values whose
// first alpha share is random and the rest repeats it (so the engine's
// compressor compresses them to about alpha), and one request of a
// workload with its value checked. A request that fails, or a Get whose
// value is not one the load (or an overwrite) wrote, is counted in
// RequestErrors: a run with any is a failed run
// (docs/decisions/failed-runs.md).

#ifndef SYMBIOSIS_TOOLS_DRIVER_REQUESTS_H_
#define SYMBIOSIS_TOOLS_DRIVER_REQUESTS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "symbiosis/workload.h"

namespace symbiosis::bench {

class BenchDb;

constexpr uint32_t kKeyBytes = 16;
constexpr uint64_t kMaxValueBytes = 1 << 20;

// Key i: "user" and i in 12 digits (kKeyBytes).
std::string Key(uint64_t i);

// Overwrites `value` (its size kept) with the value of `key` at `version`:
// its first alpha share random bytes, the rest repeating them. snappy (and
// LZ4, zlib) keep the random part and turn the repeats into back-references.
void FillValue(uint64_t key, uint64_t version, double alpha, std::string* value);

// "" if `value` can be one FillValue wrote for a value of `value_bytes` at
// `alpha` (its length, and its random head repeated to its end), else what
// is wrong with it. Which key or version wrote it is not checked: that
// would cost a generator per read.
std::string CheckValue(const std::string& value, uint32_t value_bytes, double alpha);

// Failed requests, counted by the reader threads, and the first one's
// message: what a failed run reports. Thread-safe.
class RequestErrors {
 public:
  void Add(const std::string& message);
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  std::string first() const;

 private:
  std::atomic<uint64_t> count_{0};
  mutable std::mutex mu_;
  std::string first_;  // GUARDED_BY(mu_)
};

// One request of the workload: a Get (its value checked), a Scan or, with
// `write_value`, a Put. Failures go to `errors`. `value` is scratch.
void Request(BenchDb& db, const KeyRequest& request, const std::string* write_value,
             uint32_t value_bytes, double alpha, std::string* value, RequestErrors* errors);

// A failed run's one line: the count and the first error.
std::string FailedRequests(const RequestErrors& errors, uint64_t requests);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_REQUESTS_H_
