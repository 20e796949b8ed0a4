#include "driver/bench_cgroup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

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

}  // namespace

std::unique_ptr<ChildCgroup> MakeBenchCgroup(uint64_t limit) {
  const MemoryCgroup parent = DetectMemoryCgroup();
  const std::string prefix = "symbiosis-bench-";
  if (const int removed = RemoveOrphanedChildCgroups(parent, prefix); removed > 0) {
    std::fprintf(stderr, "removed %d cgroup(s) under %s left by killed runs\n", removed,
                 parent.dir.c_str());
  }
  return ChildCgroup::Create(parent, prefix + std::to_string(getpid()), limit);
}

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

}  // namespace symbiosis::bench
