// ParallelFor: runs independent jobs on a few threads, for the studies.

#ifndef SYMBIOSIS_SIM_PARALLEL_H_
#define SYMBIOSIS_SIM_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace symbiosis {

// Calls job(i) for every i in [0, jobs), on `threads` threads (0: one per
// core), each job exactly once and in no particular order. The first
// exception a job throws stops the handing out of jobs and is rethrown once
// every thread has finished. REQUIRES: jobs share no mutable state.
void ParallelFor(size_t jobs, unsigned threads,
                 const std::function<void(size_t)>& job);

}  // namespace symbiosis

#endif  // SYMBIOSIS_SIM_PARALLEL_H_
