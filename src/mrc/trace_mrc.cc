#include "symbiosis/trace_mrc.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_map>

#include "symbiosis/error.h"
#include "symbiosis/exact_lru_mrc.h"
#include "symbiosis/klru_cache.h"
#include "symbiosis/krr.h"
#include "symbiosis/redis_cache.h"
#include "symbiosis/shards.h"

namespace symbiosis {

namespace {

constexpr size_t kBatch = 1 << 16;

std::string UnitName(CacheUnit unit) { return unit == CacheUnit::kBytes ? "bytes" : "objects"; }

// Feeds every record to `access`; checks that a bytes curve has sizes.
template <typename Access>
void Pass(const std::string& path, const TraceOptions& trace, CacheUnit unit, int pass,
          int passes, const TraceMrcProgress& progress, Access access) {
  TraceReader reader(path, trace);
  std::vector<TraceRecord> batch;
  uint64_t record = 0;
  while (reader.Read(kBatch, &batch) > 0) {
    for (const TraceRecord& r : batch) {
      record++;
      if (unit == CacheUnit::kBytes && r.size == 0) {
        throw InputError(path + ": record " + std::to_string(record) + " has size 0, so a curve in bytes cannot weigh it; drop --bytes, or "
                         "give the csv's size column (size=N)");
      }
      access(r);
    }
    if (progress) progress(reader.bytes_consumed(), reader.file_bytes(), pass, passes);
  }
}

uint64_t CountWorkingSet(const std::string& path, const TraceOptions& trace,
                         const TraceMrcOptions& options, const TraceMrcProgress& progress) {
  WorkingSetCount count;
  Pass(path, trace, options.unit, 1, 2, progress,
       [&](const TraceRecord& r) { count.Access(r.key, r.size); });
  return count.Total(options);
}

void CheckSizes(const std::vector<uint64_t>& sizes) {
  for (size_t i = 0; i < sizes.size(); i++) {
    if (sizes[i] == 0) throw InputError("cache size 0 is not a cache; give sizes above 0");
    if (i > 0 && sizes[i] <= sizes[i - 1]) {
      throw InputError("cache sizes must be ascending without repeats; " +
                       std::to_string(sizes[i]) + " follows " + std::to_string(sizes[i - 1]));
    }
  }
}

void CheckWithinWorkingSet(const std::vector<uint64_t>& sizes, uint64_t working_set,
                           bool estimated, CacheUnit unit) {
  const double limit = estimated ? 1.1 * static_cast<double>(working_set)
                                 : static_cast<double>(working_set);
  if (!sizes.empty() && static_cast<double>(sizes.back()) > limit) {
    throw InputError("cache size " + std::to_string(sizes.back()) + " " + UnitName(unit) +
                     " is beyond the trace's working set of " + std::to_string(working_set) +
                     (estimated ? " (estimated from the sample)" : "") +
                     ", where the curve is flat; give sizes up to it, or leave --sizes out");
  }
}

std::unique_ptr<MrcBuilder> MakeOnePass(const TraceMrcOptions& o) {
  switch (o.algorithm) {
    case MrcAlgorithm::kLru:
      return std::make_unique<ExactLruMrc>(o.unit);
    case MrcAlgorithm::kShards: {
      ShardsOptions s;
      s.unit = o.unit;
      s.rate = o.rate > 0 ? o.rate : 0.01;
      s.max_keys = o.max_keys;
      s.min_keys = o.max_keys > 0 ? 0 : o.min_keys;  // a fixed size bounds it already
      s.seed = o.seed;
      return std::make_unique<ShardsMrc>(s);
    }
    case MrcAlgorithm::kKrr: {
      KrrOptions k;
      k.unit = o.unit;
      k.k = o.k;
      k.k_exponent = o.k_exponent;
      k.rate = o.rate > 0 ? o.rate : 1;
      k.min_keys = o.min_keys;
      k.seed = o.seed;
      return std::make_unique<KrrMrc>(k);
    }
    case MrcAlgorithm::kKLruSim:
    case MrcAlgorithm::kRedis:
      break;
  }
  return nullptr;
}

// The simulators run at sizes known before the pass.
std::unique_ptr<MrcBuilder> MakeSimulator(const TraceMrcOptions& o,
                                          const std::vector<uint64_t>& sizes) {
  if (o.algorithm == MrcAlgorithm::kRedis) {
    RedisSimOptions r;
    r.cache.unit = o.unit;
    r.cache.samples = o.k;
    r.cache.key_bytes = o.key_bytes;
    r.cache.seed = o.seed;
    r.request_rate = o.request_rate;
    return std::make_unique<RedisSimMrc>(r, sizes);
  }
  KLruOptions k;
  k.unit = o.unit;
  k.k = o.k;
  k.pool_size = o.pool_size;
  k.with_replacement = o.with_replacement;
  k.seed = o.seed;
  return std::make_unique<KLruSimMrc>(k, sizes);
}

}  // namespace

uint64_t WorkingSetCount::Total(const TraceMrcOptions& options) const {
  if (options.unit == CacheUnit::kObjects) return last_size_.size();
  const bool redis = options.algorithm == MrcAlgorithm::kRedis;
  uint64_t bytes = redis ? RedisTableBytes(last_size_.size()) : 0;
  for (const auto& [key, size] : last_size_) {
    bytes += redis ? RedisKeyBytes(options.key_bytes, size) : size;
  }
  return bytes;
}

size_t WorkingSetCount::MemoryUsage() const {
  // A node per key (next pointer, key, size, cached hash) and a bucket.
  return last_size_.size() * (4 * sizeof(uint64_t) + sizeof(void*)) +
         last_size_.bucket_count() * sizeof(void*);
}

bool MrcSimulates(MrcAlgorithm algorithm) {
  return algorithm == MrcAlgorithm::kKLruSim || algorithm == MrcAlgorithm::kRedis;
}

void CheckMrcSizes(const TraceMrcOptions& options, const std::vector<uint64_t>& sizes,
                   std::optional<uint64_t> working_set) {
  CheckSizes(sizes);
  if (!working_set) return;
  const bool estimated = options.algorithm == MrcAlgorithm::kShards ||
                         (options.algorithm == MrcAlgorithm::kKrr && options.rate > 0 &&
                          options.rate < 1);
  CheckWithinWorkingSet(sizes, *working_set, estimated, options.unit);
}

std::unique_ptr<MrcBuilder> MakeMrcBuilder(const TraceMrcOptions& options,
                                           const std::vector<uint64_t>& sizes) {
  return MrcSimulates(options.algorithm) ? MakeSimulator(options, sizes) : MakeOnePass(options);
}

MrcAlgorithm ParseMrcAlgorithm(const std::string& name) {
  if (name == "lru") return MrcAlgorithm::kLru;
  if (name == "shards") return MrcAlgorithm::kShards;
  if (name == "krr") return MrcAlgorithm::kKrr;
  if (name == "klru-sim") return MrcAlgorithm::kKLruSim;
  if (name == "redis") return MrcAlgorithm::kRedis;
  throw InputError("unknown MRC algorithm '" + name +
                   "'; use lru, shards, krr, klru-sim or redis");
}

TraceMrcResult TraceMrc(const std::string& path, const TraceOptions& trace,
                        const TraceMrcOptions& options, const TraceMrcProgress& progress) {
  if (options.sizes.empty() && options.points == 0) {
    throw InputError("give at least one point (--points) or the sizes (--sizes)");
  }
  CheckMrcSizes(options, options.sizes);
  const auto start = std::chrono::steady_clock::now();
  TraceMrcResult result;
  if (MrcSimulates(options.algorithm)) {
    const bool redis = options.algorithm == MrcAlgorithm::kRedis;
    const bool trace_times = redis && options.request_rate <= 0;
    if (trace_times && !TraceHasTimes(trace)) {
      throw InputError("the Redis model needs each request's time, as the server's LRU clock "
                       "has it: this trace format has none; give the csv's time column "
                       "(time=N,time_unit=s|ms|us) or the rate they come at (--request-rate)");
    }
    // The sizes must be known before the simulation: a first pass counts
    // the working set when they are not given.
    if (path == "-" && options.sizes.empty()) {
      throw InputError(std::string(redis ? "the Redis model" : "the K-LRU simulator") +
                       " reads the trace twice without sizes, and standard input can be read "
                       "once; give --sizes, or a file");
    }
    result.working_set = CountWorkingSet(path, trace, options, progress);
    std::vector<uint64_t> sizes = options.sizes;
    if (sizes.empty()) {
      sizes = EvenSizes(result.working_set, options.points);
    } else {
      CheckMrcSizes(options, sizes, result.working_set);
    }
    std::unique_ptr<MrcBuilder> sim = MakeSimulator(options, sizes);
    Pass(path, trace, options.unit, 2, 2, progress, [&](const TraceRecord& r) {
      if (trace_times) {
        sim->AccessAt(r.key, r.size, r.time_us);
      } else {
        sim->Access(r.key, r.size);
      }
    });
    result.curve = sim->Curve(sizes);
    result.memory_bytes = sim->MemoryUsage();
  } else {
    std::unique_ptr<MrcBuilder> builder = MakeOnePass(options);
    Pass(path, trace, options.unit, 1, 1, progress,
         [&](const TraceRecord& r) { builder->Access(r.key, r.size); });
    result.working_set = builder->WorkingSet();
    CheckMrcSizes(options, options.sizes, result.working_set);
    const std::vector<uint64_t> sizes =
        options.sizes.empty() ? EvenSizes(result.working_set, options.points) : options.sizes;
    result.curve = builder->Curve(sizes);
    result.memory_bytes = builder->MemoryUsage();
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace symbiosis
