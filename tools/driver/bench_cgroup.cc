#include "driver/bench_cgroup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "driver/flags.h"

namespace symbiosis::bench {
namespace {

void DropFromPageCache(const std::string& db) {
  for (const auto& entry : std::filesystem::directory_iterator(db)) {
    const int fd = open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

// A cgroup of `limit` bytes for this run, under this process's own. First
// removes the cgroups of runs that were killed with SIGKILL. Throws
// CgroupError.
std::unique_ptr<ChildCgroup> MakeBenchCgroup(uint64_t limit) {
  const MemoryCgroup parent = DetectMemoryCgroup();
  const std::string prefix = "symbiosis-bench-";
  if (const int removed = RemoveOrphanedChildCgroups(parent, prefix); removed > 0) {
    std::fprintf(stderr, "removed %d cgroup(s) under %s left by killed runs\n", removed,
                 parent.dir.c_str());
  }
  return ChildCgroup::Create(parent, prefix + std::to_string(getpid()), limit);
}

// Runs `body` in a forked child inside `cgroup`, after the pages of the
// files in `db` are dropped from the page cache, with Ctrl-C (and the other
// guarded signals) removing the cgroup. Returns `body`'s status.
int RunInBenchCgroup(std::unique_ptr<ChildCgroup> cgroup, const std::string& db,
                     const std::function<int()>& body) {
  DropFromPageCache(db);
  InterruptGuard guard;
  try {
    return RunInChildCgroup(*cgroup, body, [] {});
  } catch (const CgroupError& e) {
    cgroup.reset();  // Fail exits without unwinding the stack
    Fail(130, std::string("interrupted: ") + e.what() + "; the cgroup was removed");
  }
}

}  // namespace

int RunUnderBudget(bool needs_cgroup, OpenRequest* open,
                   const std::function<void(const CgroupError&)>& no_cgroup,
                   const std::function<int()>& body) {
  std::unique_ptr<ChildCgroup> cgroup;
  if (needs_cgroup) {
    // The kernel rounds a cgroup's limit down to a page, and the engine's
    // budget is that limit less the reserve: the reserve takes the
    // rounding up, so that the budget stays M.
    constexpr uint64_t kPage = 4096;
    open->reserve = (open->memory + open->reserve + kPage - 1) / kPage * kPage - open->memory;
    try {
      cgroup = MakeBenchCgroup(open->memory + open->reserve);
    } catch (const CgroupError& e) {
      no_cgroup(e);
    }
  }
  if (!cgroup) {
    InterruptGuard guard;
    return body();
  }
  open->in_cgroup = true;
  return RunInBenchCgroup(std::move(cgroup), open->path, body);
}

}  // namespace symbiosis::bench
