#include "online/service_times.h"

namespace symbiosis {

uint64_t ServiceTimes::Count() const {
  uint64_t n = 0;
  for (const uint64_t c : count) n += c;
  return n;
}

ServiceTimes ServiceTimes::Since(const ServiceTimes& before) const {
  ServiceTimes w;
  for (size_t i = 0; i < kServiceTimeBuckets; ++i) {
    w.count[i] = count[i] - before.count[i];
    w.ns[i] = ns[i] - before.ns[i];
  }
  return w;
}

double ServiceTimes::UnpreemptedMeanUs() const {
  const uint64_t total = Count();
  if (total == 0) return 0;
  size_t median = 0;
  uint64_t seen = count[0];
  while (2 * seen < total) seen += count[++median];
  uint64_t kept = 0;
  uint64_t kept_ns = 0;
  for (size_t i = 0; i < kServiceTimeBuckets && i < median + kPreemptedBuckets; ++i) {
    kept += count[i];
    kept_ns += ns[i];
  }
  return kept_ns / 1e3 / kept;
}

}  // namespace symbiosis
