// EventTotals: the Controller's cumulative counts of one process's
// accesses, reads and timed events, as the Tracker is fed them; a window
// is the difference of two (Since).

#ifndef SYMBIOSIS_ONLINE_EVENT_TOTALS_H_
#define SYMBIOSIS_ONLINE_EVENT_TOTALS_H_

#include <cstdint>

#include "online/service_times.h"

namespace symbiosis {

// Cumulative counts since the start; service times in nanoseconds.
struct EventTotals {
  uint64_t accesses = 0;   // application-cache lookups
  uint64_t app_hits = 0;
  uint64_t reads = 0;      // reads after application misses
  uint64_t read_hits = 0;  // of which the kernel cache held every byte
  ServiceTimes hits;       // of timed reads that hit
  // Timed hits whose thread's scheduler times were measured, their service
  // time, and of it the time runnable waiting for a CPU.
  uint64_t hit_split = 0;
  uint64_t hit_split_ns = 0;
  uint64_t hit_split_runnable_ns = 0;
  uint64_t miss_ns = 0;    // service time of timed reads that missed
  uint64_t miss_timed = 0;
  // Stores into the second tier (RocksDB's compressed cache), timed; not
  // part of the reads' service times.
  ServiceTimes stores;
  // Timed misses whose thread's scheduler times were measured, their
  // service time, and of it the time on a CPU and runnable waiting for one.
  uint64_t split_misses = 0;
  uint64_t split_ns = 0;
  uint64_t split_cpu_ns = 0;
  uint64_t split_runnable_ns = 0;
  // The process when the totals were taken; 0 when not measured.
  uint64_t wall_ns = 0;
  uint64_t process_cpu_ns = 0;
  uint64_t process_runnable_ns = 0;
  uint32_t cpus = 0;  // not cumulative: the CPUs allowed then
  // Not cumulative: the working-set probe's count since its last clear,
  // at window ends while probing() (working_set_probe.h).
  double probe_distinct = 0;
};

// A window's hit ratios and second-tier stores per access. L_e follows
// from them with the costs of the moment, so a change of the measured
// costs alone is no change of the workload.
struct WindowRatios {
  double hit_app = 0;
  double hit_second_tier = 1;
  double stores = 0;  // second-tier stores per access

  // For means over windows: a sum starts at WindowRatios{0, 0, 0}.
  void Add(const WindowRatios& m) {
    hit_app += m.hit_app;
    hit_second_tier += m.hit_second_tier;
    stores += m.stores;
  }
  WindowRatios DividedBy(double n) const { return {hit_app / n, hit_second_tier / n, stores / n}; }
};

// Values taken one per window (a busy time per access, an L_e): their
// spread.
struct WindowSpread {
  double sum = 0;
  double squares = 0;
  uint32_t windows = 0;
  void Add(double x) {
    sum += x;
    squares += x * x;
    ++windows;
  }
  // The sample standard deviation; 0 from fewer than two windows.
  double Deviation() const;
  // The standard error of their mean; 0 from fewer than two windows.
  double StandardError() const;
};

// The ratios of window `w` (no read seen: no kernel miss seen either).
WindowRatios RatiosOf(const EventTotals& w);

// The counts between `from` and `to` (to taken later). Process times only
// where both were measured; a thread that exited took its times along, so
// they may even run backwards (then 0).
EventTotals Since(const EventTotals& from, const EventTotals& to);

// Adds to `sum` the counts a measure of busy time and hit ratios reads.
void Accumulate(EventTotals* sum, const EventTotals& w);

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_EVENT_TOTALS_H_
