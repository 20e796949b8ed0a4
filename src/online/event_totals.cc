#include "online/event_totals.h"

#include <algorithm>
#include <cmath>

namespace symbiosis {

EventTotals Since(const EventTotals& from, const EventTotals& to) {
  EventTotals w;
  w.accesses = to.accesses - from.accesses;
  w.app_hits = to.app_hits - from.app_hits;
  w.reads = to.reads - from.reads;
  w.read_hits = to.read_hits - from.read_hits;
  w.hits = to.hits.Since(from.hits);
  w.hit_split = to.hit_split - from.hit_split;
  w.hit_split_ns = to.hit_split_ns - from.hit_split_ns;
  w.hit_split_runnable_ns = to.hit_split_runnable_ns - from.hit_split_runnable_ns;
  w.miss_ns = to.miss_ns - from.miss_ns;
  w.miss_timed = to.miss_timed - from.miss_timed;
  w.stores = to.stores.Since(from.stores);
  w.split_misses = to.split_misses - from.split_misses;
  w.split_ns = to.split_ns - from.split_ns;
  w.split_cpu_ns = to.split_cpu_ns - from.split_cpu_ns;
  w.split_runnable_ns = to.split_runnable_ns - from.split_runnable_ns;
  // Process times exist only if both ends were measured; a thread that
  // exited took its times along, so they may even run backwards.
  if (from.wall_ns != 0 && to.wall_ns > from.wall_ns) {
    auto since = [](uint64_t a, uint64_t b) { return b > a ? b - a : 0; };
    w.wall_ns = to.wall_ns - from.wall_ns;
    w.process_cpu_ns = since(from.process_cpu_ns, to.process_cpu_ns);
    w.process_runnable_ns = since(from.process_runnable_ns, to.process_runnable_ns);
  }
  w.cpus = to.cpus;
  w.probe_distinct = to.probe_distinct;
  return w;
}

double WindowSpread::Deviation() const {
  if (windows < 2) return 0;
  const double n = windows;
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, (squares - n * mean * mean) / (n - 1)));
}

double WindowSpread::StandardError() const {
  return windows < 2 ? 0 : Deviation() / std::sqrt(static_cast<double>(windows));
}

WindowRatios RatiosOf(const EventTotals& w) {
  WindowRatios m;
  m.hit_app = w.accesses ? std::min(1.0, static_cast<double>(w.app_hits) / w.accesses) : 0;
  m.hit_second_tier = w.reads ? std::min(1.0, static_cast<double>(w.read_hits) / w.reads) : 1;
  m.stores = w.accesses ? static_cast<double>(w.stores.Count()) / w.accesses : 0;
  return m;
}

void Accumulate(EventTotals* sum, const EventTotals& w) {
  sum->accesses += w.accesses;
  sum->app_hits += w.app_hits;
  sum->reads += w.reads;
  sum->read_hits += w.read_hits;
  for (size_t i = 0; i < kServiceTimeBuckets; i++) {
    sum->stores.count[i] += w.stores.count[i];
    sum->stores.ns[i] += w.stores.ns[i];
  }
  sum->wall_ns += w.wall_ns;
  sum->process_cpu_ns += w.process_cpu_ns;
  sum->process_runnable_ns += w.process_runnable_ns;
}

}  // namespace symbiosis
