// The kernel budget's cgroup for one run: a child of this process's memory
// cgroup, of M + reserve bytes, removed on exit, error or Ctrl-C. The DB's
// pages are dropped from the page cache first, so every configuration
// starts cold.

#ifndef SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_
#define SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_

#include <functional>

#include "driver/driver.h"
#include "symbiosis/cgroup.h"

namespace symbiosis::bench {

// Runs `body` under `open`'s budget: in a child cgroup of M + reserve when
// `needs_cgroup` (then `open->in_cgroup` is set), else in this process with
// Ctrl-C guarded. Where the cgroup cannot be made, `no_cgroup` either exits
// with its one-line error or changes `open` to a budget that needs none,
// which `body` then runs. Returns `body`'s status.
int RunUnderBudget(bool needs_cgroup, OpenRequest* open,
                   const std::function<void(const CgroupError&)>& no_cgroup,
                   const std::function<int()>& body);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_BENCH_CGROUP_H_
