// A trace split by key, for miss-ratio curves computed apart (on the
// workers of a cluster) and merged: python/symbiosis/mrc_distributed.py.
//
// Partition p of P holds the keys whose hash, salted apart from the
// samplers' own hashes, falls in p. Each partition is then a spatial
// sample of the keys at rate 1/P (SHARDS' argument, Waldspurger et al.,
// FAST '15): its reuse distances are about 1/P of the whole trace's, so
// its curve at C x share estimates the whole's at C, and the partitions'
// curves, weighted by their requests, add up to the whole's. A key's
// requests all fall in one partition, in trace order, so each partition
// sees the same reuse as the whole trace does for its keys.

#ifndef SYMBIOSIS_TRACE_PARTITION_H_
#define SYMBIOSIS_TRACE_PARTITION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symbiosis/mrc.h"
#include "symbiosis/trace.h"
#include "symbiosis/trace_mrc.h"

namespace symbiosis {

// The partition of `key` among `partitions`. REQUIRES: partitions > 0.
uint32_t TracePartitionOf(uint64_t key, uint32_t partitions);

struct PartitionedRecords {
  std::vector<std::vector<TraceRecord>> partitions;  // each in trace order
  uint64_t records = 0;  // in every partition
  uint64_t skipped = 0;  // left out by TraceOptions::ops
  uint64_t bytes = 0;    // of the file (compressed bytes for zstd)
};

// Reads `options`' range of `path` in batches, each split by partition.
// With `require_sizes` (a curve in bytes) a record of size 0 is an error.
// Every call may throw InputError as TraceReader, naming the file and the
// byte offset.
class PartitionedReader {
 public:
  PartitionedReader(const std::string& path, const TraceOptions& options, uint32_t partitions,
                    bool require_sizes);

  // Replaces *out with the next up to `max_records` records, split, and
  // what reading them counted; false (and *out empty) at the range's end.
  bool Read(size_t max_records, PartitionedRecords* out);

 private:
  const std::string path_;
  const uint64_t start_byte_;
  const uint32_t partitions_;
  const bool require_sizes_;
  TraceReader reader_;
  std::vector<TraceRecord> batch_;
  uint64_t records_ = 0;
  uint64_t skipped_ = 0;
  uint64_t bytes_ = 0;
};

// One partition's builder. A simulator's sizes must be known before its
// requests: a working-set pass (`sim_sizes` empty) only counts the
// working set, and a second pass builds at the sizes then chosen. The
// one-pass methods build at once (`sim_sizes` ignored).
// Not thread-safe.
class PartitionMrc {
 public:
  PartitionMrc(const TraceMrcOptions& options, const std::vector<uint64_t>& sim_sizes);

  // The partition's next records, in trace order. Throws InputError for
  // a Redis model without request times (the trace's, as request_rate is
  // the whole trace's and a partition does not know its requests' ranks).
  void Feed(const TraceRecord* records, size_t count);

  // Whether this builds a curve (not the working-set pass).
  bool builds() const { return builder_ != nullptr; }
  // The partition's working set in the capacity unit (estimated when the
  // method samples).
  uint64_t WorkingSet() const;
  // REQUIRES: builds(); sizes ascending, > 0.
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes);

  uint64_t requests() const { return requests_; }
  double requested_bytes() const { return requested_bytes_; }
  size_t MemoryUsage() const;

 private:
  const TraceMrcOptions options_;
  std::unique_ptr<MrcBuilder> builder_;  // null in the working-set pass
  WorkingSetCount working_set_;
  uint64_t requests_ = 0;
  double requested_bytes_ = 0;
};

// A partition's cache sizes for the whole's `sizes`: each times `share`
// (the partition's share of the working set), rounded, at least 1,
// repeats dropped. REQUIRES: 0 <= share <= 1.
std::vector<uint64_t> PartitionSizes(const std::vector<uint64_t>& sizes, double share);

// One partition's part of a merged curve.
struct PartitionCurve {
  double share = 0;       // of the working set, as PartitionSizes took it
  MissRatioCurve curve;   // at PartitionSizes(sizes, share)
  uint64_t requests = 0;  // PartitionMrc::requests()
  double requested_bytes = 0;
};

// The whole trace's curve at `sizes` from its partitions': at each size,
// each partition's miss ratio at its own size, weighted by its requests
// (byte miss ratios by its requested bytes). Its sample rate is the
// lowest partition's. Memory and time grow with the partitions and
// sizes, never with the trace. Throws InputError if a partition's curve
// is not at PartitionSizes(sizes, share).
MissRatioCurve MergePartitionCurves(const std::vector<uint64_t>& sizes,
                                    const std::vector<PartitionCurve>& parts);

}  // namespace symbiosis

#endif  // SYMBIOSIS_TRACE_PARTITION_H_
