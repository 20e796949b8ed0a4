// Traces and comparisons shared by the MRC tests.

#ifndef SYMBIOSIS_MRC_MRC_TEST_SUPPORT_H_
#define SYMBIOSIS_MRC_MRC_TEST_SUPPORT_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/hash.h"
#include "symbiosis/mrc.h"
#include "symbiosis/trace.h"
#include "symbiosis/workload.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace mrc_testing {

// `n` requests of a workload over `keys` keys; each key has a fixed size
// in [512, 8192) bytes drawn from its hash (a variable-size trace).
inline std::vector<TraceRecord> WorkloadRecords(const std::string& spec, uint64_t keys,
                                                uint64_t n, uint64_t seed = 1) {
  auto workload = MakeWorkload(spec, keys, 128, seed);
  std::vector<TraceRecord> records;
  records.reserve(n);
  for (uint64_t i = 0; i < n; i++) {
    const uint64_t key = workload->Next().first_key;
    records.push_back({key, static_cast<uint32_t>(512 + Mix64(key) % 7680)});
  }
  return records;
}

// The CloudPhysics trace (113,872 requests; testing::CloudPhysicsTrace).
// Throws if it cannot be read.
inline std::vector<TraceRecord> CloudPhysics() {
  return ReadTrace(testing::CloudPhysicsTrace().string(), TraceOptions{});
}

inline MissRatioCurve Feed(MrcBuilder& builder, const std::vector<TraceRecord>& records,
                          const std::vector<uint64_t>& sizes) {
  for (const TraceRecord& r : records) builder.Access(r.key, r.size);
  return builder.Curve(sizes);
}

inline double MeanAbsoluteError(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); i++) sum += std::fabs(a[i] - b[i]);
  return a.empty() ? 0 : sum / static_cast<double>(a.size());
}

}  // namespace mrc_testing
}  // namespace symbiosis

#endif  // SYMBIOSIS_MRC_MRC_TEST_SUPPORT_H_
