// SchedTimes: how long threads ran on a CPU (the CPU-time clocks) and how
// long they waited, runnable, for one (Linux's schedstat,
// /proc/<pid>/task/<tid>/schedstat: "run_ns wait_ns timeslices").
//
// The Controller uses them to tell a device read's own cost from CPU
// contention: with more threads than CPUs, a thread woken by its device
// read waits in the run queue behind threads serving hits, and that wait
// is not what the read costs (see cost_model.h).

#ifndef SYMBIOSIS_SCHED_TIMES_H_
#define SYMBIOSIS_SCHED_TIMES_H_

#include <cstdint>
#include <optional>

namespace symbiosis {

struct SchedTimes {
  uint64_t cpu_ns = 0;   // on a CPU
  uint64_t wait_ns = 0;  // runnable, waiting for a CPU
};

// The steady clock in nanoseconds: the wall time that service times and
// the CPU times are measured against.
uint64_t SteadyNowNs();

// `after` - `before`, each field clamped at 0.
SchedTimes SchedTimesSince(const SchedTimes& before, const SchedTimes& after);

// The calling thread's times; nullopt without schedstat (a kernel without
// CONFIG_SCHED_INFO, or no /proc). A clock_gettime and a pread of a file
// kept open per thread: 1.1 us on this project's machine, so call it
// around device reads, not around every cache hit.
std::optional<SchedTimes> ThisThreadSchedTimes();

// The calling thread's times since `start` (a ThisThreadSchedTimes of the
// same thread); nullopt if `start` is nullopt or the times cannot be read.
std::optional<SchedTimes> ThisThreadSchedTimesSince(const std::optional<SchedTimes>& start);

// Where the engine plugins sample a read's scheduler times: the Controller
// needs a sample of reads, not every read, and each site keeps its own
// count per thread.
//   kDeviceRead      one in 8: 2.2 us per read is 3% of the CPU of a
//                    device-bound LevelDB run (uniform at M/D_u 0.2: 0.6
//                    device reads per operation), and one in 8 still gives
//                    thousands per window there.
//   kSecondTierHit   one in 128: a page-cache hit costs 3 to 4 us of CPU,
//                    so the 2.2 us split of one in 128 adds under 0.5%, and
//                    hits are frequent enough for hundreds per window.
enum class SampleSite { kDeviceRead, kSecondTierHit };
constexpr uint32_t SampleEvery(SampleSite site) {
  return site == SampleSite::kDeviceRead ? 8 : 128;
}

// ThisThreadSchedTimes for one call in SampleEvery(site) * `slowdown` at
// `site` on the calling thread, nullopt for the others (and for all with
// `slowdown` 0). The Controller asks for fewer samples in Stable
// (Controller::sched_sample_slowdown).
std::optional<SchedTimes> SampledThreadSchedTimes(SampleSite site, uint32_t slowdown = 1);

// The process's CPU time (all threads, also those that exited) and its
// live threads' run-queue wait (a thread that exited takes its wait with
// it); nullopt if neither can be read. Opens one file per thread: for once
// a window, not per access.
std::optional<SchedTimes> ProcessSchedTimes();

// The number of CPUs this process may run on (its affinity mask), >= 1.
uint32_t AllowedCpus();

}  // namespace symbiosis

#endif  // SYMBIOSIS_SCHED_TIMES_H_
