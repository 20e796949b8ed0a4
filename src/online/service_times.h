// ServiceTimes: a histogram of read service times (wall clock) in
// power-of-two buckets, and their mean with the preempted reads left out.
//
// A read timed by the wall clock alone holds every wait of its thread for
// a CPU. Most waits are short, but a thread preempted at the end of its
// time slice waits out the others' slices: milliseconds, where the read
// itself (a compressed-cache hit of RocksDB: a decompression) takes 1-4 us.
// With four readers on one CPU, 99% of hits took 1-4 us and one in 5000
// a millisecond or more; those few lifted the mean to 7-11 us in the
// grid's zipfian cell at M/D_u 0.8 (docs/decisions/miss-cost-timing.md). Timing
// the hit's own CPU instead needs a system call on each side, and the
// calls inflate what they measure: a hit after a CPU-clock read took
// 6.5 us of wall time, 2.5 us without. So every hit is timed by the wall
// clock (a vDSO read), and a histogram tells the preempted ones apart.

#ifndef SYMBIOSIS_ONLINE_SERVICE_TIMES_H_
#define SYMBIOSIS_ONLINE_SERVICE_TIMES_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace symbiosis {

// Bucket i holds times in [2^(i+9), 2^(i+10)) ns, about [0.5 us, 1 us)
// for bucket 0, which also takes the shorter ones; the last takes the
// longer ones (from 8.4 ms).
constexpr size_t kServiceTimeBuckets = 15;

constexpr size_t ServiceTimeBucket(uint64_t ns) {
  if (ns < (uint64_t{1} << 10)) return 0;
  const size_t log2 = 63 - static_cast<size_t>(__builtin_clzll(ns));
  return log2 - 9 < kServiceTimeBuckets ? log2 - 9 : kServiceTimeBuckets - 1;
}

struct ServiceTimes {
  std::array<uint64_t, kServiceTimeBuckets> count{};
  std::array<uint64_t, kServiceTimeBuckets> ns{};

  // `reads` reads that took `service_ns` each.
  void Add(uint64_t service_ns, uint64_t reads = 1) {
    const size_t i = ServiceTimeBucket(service_ns);
    count[i] += reads;
    ns[i] += service_ns * reads;
  }

  uint64_t Count() const;

  // The times in `this` that are not in `before` (an earlier snapshot of
  // the same cumulative histogram).
  ServiceTimes Since(const ServiceTimes& before) const;

  // The mean in microseconds of the times up to kPreemptedBuckets - 1
  // buckets above the median's; 0 if empty. The slower ones, from 16-32
  // times the median (the bound is a bucket's, not a value), waited out
  // other threads' time slices: a slice is about 1000 times a hit, while a
  // read whose own cost varies that much (a block 16 times the usual size)
  // is rare enough not to move the mean.
  double UnpreemptedMeanUs() const;

  static constexpr size_t kPreemptedBuckets = 5;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_SERVICE_TIMES_H_
