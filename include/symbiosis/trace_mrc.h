// TraceMrc: the miss-ratio curve of a trace file by any MrcBuilder, as the
// `symbiosis mrc` command runs it: the trace streams through the builder
// once (twice for the K-LRU simulator and the Redis model without given
// sizes: a first pass finds the working set the sizes are spread over).

#ifndef SYMBIOSIS_TRACE_MRC_H_
#define SYMBIOSIS_TRACE_MRC_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbiosis/mrc.h"
#include "symbiosis/trace.h"

namespace symbiosis {

enum class MrcAlgorithm { kLru, kShards, kKrr, kKLruSim, kRedis };

// "lru", "shards", "krr", "klru-sim", "redis". Throws InputError.
MrcAlgorithm ParseMrcAlgorithm(const std::string& name);

struct TraceMrcOptions {
  MrcAlgorithm algorithm = MrcAlgorithm::kLru;
  CacheUnit unit = CacheUnit::kObjects;
  // Capacities; empty: `points` spread evenly over the working set.
  std::vector<uint64_t> sizes;
  size_t points = 40;
  double rate = 0;        // sampling rate; 0: 0.01 for shards, 1 for krr
  uint64_t max_keys = 0;  // shards: fixed size
  uint64_t min_keys = 0;  // shards, krr: a floor on the sampled keys (sample_threshold.h)
  uint32_t k = 5;         // krr, klru-sim; redis: maxmemory-samples
  double k_exponent = 1.4;     // krr
  uint32_t pool_size = 0;      // klru-sim: Redis's eviction pool (16), 0: none
  bool with_replacement = true;  // klru-sim
  // redis: requests per second, replacing the trace's times (0: the
  // trace's own, which it must have), and the key names' length in bytes
  // (redis_cache.h).
  double request_rate = 0;
  uint32_t key_bytes = 16;
  uint64_t seed = 1;
};

struct TraceMrcResult {
  MissRatioCurve curve;
  uint64_t working_set = 0;  // in the capacity unit; estimated when sampled
  size_t memory_bytes = 0;   // the builder's, at the end
  double seconds = 0;        // building the curve, trace reading included
};

// Whether `algorithm` simulates a cache per size (klru-sim, redis), so
// that its sizes must be known before the requests.
bool MrcSimulates(MrcAlgorithm algorithm);

// Throws InputError for `sizes` that are zero or not ascending, and, with
// the working set known, for sizes beyond it (by more than 10% where
// `options` samples keys, so that the working set is an estimate): the
// curve is flat there.
void CheckMrcSizes(const TraceMrcOptions& options, const std::vector<uint64_t>& sizes,
                   std::optional<uint64_t> working_set = std::nullopt);

// The builder TraceMrc runs for `options`: a one-pass method, or a
// simulator at `sizes` (REQUIRES for a simulator: sizes ascending, > 0).
std::unique_ptr<MrcBuilder> MakeMrcBuilder(const TraceMrcOptions& options,
                                           const std::vector<uint64_t>& sizes);

// The working set the simulators' sizes are spread over: distinct keys,
// or the bytes of their last sizes (for the Redis model: what the
// server's used_memory grows by to hold them all). Counts of disjoint
// sets of keys add up.
class WorkingSetCount {
 public:
  void Access(uint64_t key, uint32_t size) { last_size_[key] = size; }
  uint64_t Total(const TraceMrcOptions& options) const;
  uint64_t keys() const { return last_size_.size(); }
  size_t MemoryUsage() const;

 private:
  std::unordered_map<uint64_t, uint32_t> last_size_;
};

// Called every few hundred thousand records with the bytes of the trace
// read so far and its size (0 for a pipe), and the pass (1 or 2 of
// `passes`).
using TraceMrcProgress =
    std::function<void(uint64_t bytes_read, uint64_t file_bytes, int pass, int passes)>;

// Throws InputError: the trace's (see trace.h), bad options, sizes zero
// or not ascending, sizes beyond the working set (by more than 10% when
// it is estimated from a sample), a bytes curve of a trace without
// sizes, or the Redis model of a trace without times and no rate.
TraceMrcResult TraceMrc(const std::string& path, const TraceOptions& trace,
                        const TraceMrcOptions& options, const TraceMrcProgress& progress = {});

}  // namespace symbiosis

#endif  // SYMBIOSIS_TRACE_MRC_H_
