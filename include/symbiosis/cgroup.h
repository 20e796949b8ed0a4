// Memory cgroups: where this process's memory budget M comes from, and a
// child cgroup of a given size to run work under a real kernel budget.
//
// Both cgroup versions are supported. Version 1 mounts the memory
// controller on its own hierarchy (e.g. /sys/fs/cgroup/memory) and names
// our cgroup on the "N:memory:/path" line of /proc/self/cgroup; the limit
// file is memory.limit_in_bytes. Version 2 has one unified hierarchy, the
// line "0::/path", and memory.max. A machine may mount both ("hybrid");
// the memory controller then lives on whichever hierarchy lists it.
//
// Errors are CgroupError, whose message is one line saying what is wrong
// and what to do.

#ifndef SYMBIOSIS_CGROUP_H_
#define SYMBIOSIS_CGROUP_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace symbiosis {

class CgroupError : public std::runtime_error {
 public:
  explicit CgroupError(const std::string& message)
      : std::runtime_error(message) {}
};

enum class CgroupVersion { kV1, kV2 };

// A directory of the memory controller's hierarchy.
struct MemoryCgroup {
  CgroupVersion version = CgroupVersion::kV2;
  std::string dir;  // absolute, e.g. /sys/fs/cgroup/memory/process_api/x
};

// Finds the memory cgroup of the process whose /proc/<pid>/cgroup and
// /proc/<pid>/mountinfo texts are given. Returns nullopt when no mounted
// hierarchy carries the memory controller for it. For v2 it does not check
// that the controller is enabled; CgroupsEnableMemory does.
std::optional<MemoryCgroup> FindMemoryCgroup(std::string_view proc_cgroup,
                                             std::string_view mountinfo);

// This process's memory cgroup. Throws CgroupError if there is none.
MemoryCgroup DetectMemoryCgroup();

// Parses a limit file: a byte count, or "max" (v2). Returns nullopt for
// no limit, which v1 writes as a number near 2^63.
// Throws CgroupError on anything else.
std::optional<uint64_t> ParseMemoryLimit(std::string_view text);

// Parses memory.stat ("name value" per line).
std::map<std::string, uint64_t> ParseMemoryStat(std::string_view text);

// The memory limit that applies to `cgroup`: the smallest limit of it and
// its ancestors. nullopt: unlimited.
std::optional<uint64_t> ReadMemoryLimit(const MemoryCgroup& cgroup);

// What a cgroup is charged for, in bytes. `file` is the page cache
// (v1 total_cache, v2 file); `anon` is anonymous memory (v1 total_rss,
// v2 anon); kernel memory (page tables, slab) is in usage only.
struct CgroupMemoryUsage {
  uint64_t usage = 0;  // memory.usage_in_bytes / memory.current
  uint64_t file = 0;
  uint64_t anon = 0;
  uint64_t active_file = 0;
  uint64_t inactive_file = 0;
};

// Reads usage and memory.stat of `cgroup`.
CgroupMemoryUsage ReadMemoryUsage(const MemoryCgroup& cgroup);

// Removes the children of `parent` named `prefix` followed by the id of a
// process that no longer exists: a run killed with SIGKILL cannot remove
// its own cgroup. One that still holds a process or a cgroup of its own
// stays (rmdir refuses). Returns how many were removed; never throws.
int RemoveOrphanedChildCgroups(const MemoryCgroup& parent, const std::string& prefix);

// A child memory cgroup with a byte limit and no swap, removed when the
// object is destroyed.
//
// Destruction moves every process still inside back to the parent,
// empties the cgroup's charges (v1: memory.force_empty) and removes the
// directory; it never throws. To also clean up on Ctrl-C, run the work in
// RunInChildCgroup under an InterruptGuard, which turns SIGINT and
// SIGTERM into an ordinary return so destructors run.
class ChildCgroup {
 public:
  // Creates `parent`/`name` with memory limit `limit_bytes`. On v2 it
  // first enables the memory controller in the parent's
  // cgroup.subtree_control; that fails when the parent holds processes
  // itself (the "no internal processes" rule), and the error says so.
  // REQUIRES: name is a single path component; limit_bytes > 0.
  static std::unique_ptr<ChildCgroup> Create(const MemoryCgroup& parent,
                                             const std::string& name,
                                             uint64_t limit_bytes);

  ~ChildCgroup();
  ChildCgroup(const ChildCgroup&) = delete;
  ChildCgroup& operator=(const ChildCgroup&) = delete;

  // Moves process `pid` (0: the caller) into this cgroup. Memory it
  // already uses stays charged where it was; new charges come here.
  void AddProcess(pid_t pid);

  const MemoryCgroup& cgroup() const { return cgroup_; }
  uint64_t limit_bytes() const { return limit_bytes_; }
  CgroupMemoryUsage ReadUsage() const { return ReadMemoryUsage(cgroup_); }

 private:
  ChildCgroup(MemoryCgroup parent, MemoryCgroup cgroup, uint64_t limit_bytes);

  const MemoryCgroup parent_;
  const MemoryCgroup cgroup_;
  const uint64_t limit_bytes_;
};

// While alive, SIGINT, SIGTERM, SIGHUP and SIGPIPE only record that they
// arrived (no SA_RESTART, so blocking calls return EINTR; a write to a
// closed pipe returns EPIPE). The previous handlers come back on
// destruction. SIGPIPE is among them because a driver whose reader died
// (a killed wrapper script) must still live to remove its cgroup. At most
// one guard at a time.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal that arrived, or 0.
  static int received();
};

// Forks; the child waits until the parent has moved it into `cgroup`,
// then runs `body` and exits with its return value (an exception is
// printed on stderr and exits 1). The parent calls `poll` about every
// `poll_ms` milliseconds until the child exits, and returns the child's
// exit status, 128 + signal if a signal killed it. If a signal reaches the
// InterruptGuard, or `poll` throws, it kills and reaps the child and
// throws CgroupError (or the exception of `poll`).
int RunInChildCgroup(ChildCgroup& cgroup, const std::function<int()>& body,
                     const std::function<void()>& poll, int poll_ms = 100);

}  // namespace symbiosis

#endif  // SYMBIOSIS_CGROUP_H_
