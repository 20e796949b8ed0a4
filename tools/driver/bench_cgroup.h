// The kernel budget's cgroup for one run: a child of this process's memory
// cgroup, of M + reserve bytes, removed on exit, error or Ctrl-C. The DB's
// pages are dropped from the page cache first, so every configuration
// starts cold.

#ifndef SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_
#define SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "symbiosis/cgroup.h"

namespace symbiosis::bench {

// A cgroup of `limit` bytes for this run, under this process's own. First
// removes the cgroups of runs that were killed with SIGKILL. Throws
// CgroupError.
std::unique_ptr<ChildCgroup> MakeBenchCgroup(uint64_t limit);

// Runs `body` in a forked child inside `cgroup`, after the pages of the
// files in `db` are dropped from the page cache, with Ctrl-C (and the other
// guarded signals) removing the cgroup. Returns `body`'s status.
int RunInBenchCgroup(std::unique_ptr<ChildCgroup> cgroup, const std::string& db,
                     const std::function<int()>& body);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_
