#include "symbiosis/trace_partition.h"

#include <algorithm>
#include <cmath>

#include "base/hash.h"
#include "symbiosis/error.h"

namespace symbiosis {

namespace {

// Apart from every sampler's seed: a partition is not a sample's half.
constexpr uint64_t kPartitionSalt = 0x7a3c9d51e0f28b64ULL;

// A whole-trace size's partition size: rounded, at least 1.
uint64_t ScaledSize(uint64_t size, double share) {
  const double scaled = static_cast<double>(size) * share;
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(scaled)));
}

}  // namespace

uint32_t TracePartitionOf(uint64_t key, uint32_t partitions) {
  // The high bits, multiplied down: no modulo bias, and no division.
  const unsigned __int128 h = Hash64(kPartitionSalt, key);
  return static_cast<uint32_t>((h * partitions) >> 64);
}

PartitionedReader::PartitionedReader(const std::string& path, const TraceOptions& options,
                                     uint32_t partitions, bool require_sizes)
    : path_(path),
      start_byte_(options.start_byte),
      partitions_(partitions),
      require_sizes_(require_sizes),
      reader_(path, options) {
  if (partitions == 0) throw InputError("partitions: give at least one");
}

bool PartitionedReader::Read(size_t max_records, PartitionedRecords* out) {
  out->partitions.assign(partitions_, {});
  out->records = out->skipped = out->bytes = 0;
  if (reader_.Read(max_records, &batch_) == 0) return false;
  for (const TraceRecord& r : batch_) {
    if (require_sizes_ && r.size == 0) {
      throw InputError(path_ + ": a record before byte " +
                       std::to_string(start_byte_ + reader_.bytes_consumed()) +
                       " has size 0, so a curve in bytes cannot weigh it; drop --bytes, or "
                       "give the csv's size column (size=N)");
    }
    out->partitions[TracePartitionOf(r.key, partitions_)].push_back(r);
  }
  out->records = reader_.records() - records_;
  out->skipped = reader_.skipped() - skipped_;
  out->bytes = reader_.bytes_consumed() - bytes_;
  records_ = reader_.records();
  skipped_ = reader_.skipped();
  bytes_ = reader_.bytes_consumed();
  return true;
}

PartitionMrc::PartitionMrc(const TraceMrcOptions& options,
                           const std::vector<uint64_t>& sim_sizes)
    : options_(options) {
  if (options.algorithm == MrcAlgorithm::kRedis && options.request_rate > 0) {
    throw InputError("the Redis model with --request-rate numbers the requests of the whole "
                     "trace, which a partition does not see; give a trace with times, or run "
                     "it in one process (without --workers)");
  }
  if (!MrcSimulates(options.algorithm) || !sim_sizes.empty()) {
    builder_ = MakeMrcBuilder(options, sim_sizes);
  }
}

void PartitionMrc::Feed(const TraceRecord* records, size_t count) {
  const bool redis_times = options_.algorithm == MrcAlgorithm::kRedis;
  for (size_t i = 0; i < count; i++) {
    const TraceRecord& r = records[i];
    requests_++;
    requested_bytes_ += r.size;
    if (builder_ == nullptr) {
      working_set_.Access(r.key, r.size);
    } else if (redis_times) {
      builder_->AccessAt(r.key, r.size, r.time_us);
    } else {
      builder_->Access(r.key, r.size);
    }
  }
}

uint64_t PartitionMrc::WorkingSet() const {
  return builds() ? builder_->WorkingSet() : working_set_.Total(options_);
}

MissRatioCurve PartitionMrc::Curve(const std::vector<uint64_t>& sizes) {
  if (!builds()) {
    throw InputError("the working-set pass builds no curve; build at the sizes it gives");
  }
  return builder_->Curve(sizes);
}

size_t PartitionMrc::MemoryUsage() const {
  return builder_ != nullptr ? builder_->MemoryUsage() : working_set_.MemoryUsage();
}

std::vector<uint64_t> PartitionSizes(const std::vector<uint64_t>& sizes, double share) {
  std::vector<uint64_t> out;
  out.reserve(sizes.size());
  for (const uint64_t size : sizes) {
    const uint64_t scaled = ScaledSize(size, share);
    if (out.empty() || scaled > out.back()) out.push_back(scaled);
  }
  return out;
}

MissRatioCurve MergePartitionCurves(const std::vector<uint64_t>& sizes,
                                    const std::vector<PartitionCurve>& parts) {
  MissRatioCurve merged;
  merged.sizes = sizes;
  merged.miss_ratios.assign(sizes.size(), 0);
  if (parts.empty()) return merged;
  const bool bytes = parts.front().curve.unit == CacheUnit::kBytes;
  merged.unit = parts.front().curve.unit;
  if (bytes) merged.byte_miss_ratios.assign(sizes.size(), 0);
  double requests = 0;
  double requested_bytes = 0;
  merged.sample_rate = 1;
  for (const PartitionCurve& p : parts) {
    requests += static_cast<double>(p.requests);
    requested_bytes += p.requested_bytes;
    merged.requests += p.curve.requests;
    merged.sampled_requests += p.curve.sampled_requests;
    merged.sample_rate = std::min(merged.sample_rate, p.curve.sample_rate);
  }
  for (size_t index = 0; index < parts.size(); index++) {
    const PartitionCurve& p = parts[index];
    if (p.requests == 0) continue;  // a partition no key fell in
    const std::vector<uint64_t> own = PartitionSizes(sizes, p.share);
    if (p.curve.sizes != own || p.curve.miss_ratios.size() != own.size() ||
        (bytes && p.curve.byte_miss_ratios.size() != own.size())) {
      throw InputError("partition " + std::to_string(index) +
                       "'s curve is not at its share of the sizes; build each partition's "
                       "curve at PartitionSizes(sizes, share)");
    }
    const double weight = static_cast<double>(p.requests) / requests;
    const double byte_weight = requested_bytes > 0 ? p.requested_bytes / requested_bytes : 0;
    size_t j = 0;  // own[j] is the partition's size for sizes[i]
    for (size_t i = 0; i < sizes.size(); i++) {
      const uint64_t scaled = ScaledSize(sizes[i], p.share);
      while (own[j] < scaled) j++;
      merged.miss_ratios[i] += weight * p.curve.miss_ratios[j];
      if (bytes) merged.byte_miss_ratios[i] += byte_weight * p.curve.byte_miss_ratios[j];
    }
  }
  return merged;
}

}  // namespace symbiosis
