#include "symbiosis/sched_times.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace symbiosis {
namespace {

// The wait field of "run_ns wait_ns timeslices" read from `fd` at offset
// 0. The run field is not used: for a running thread it lags by the time
// since the scheduler last accounted it (up to a tick), while the CPU
// clocks include it; the wait is accounted whenever the thread is put on
// a CPU, so it is current for the thread that reads it.
std::optional<uint64_t> ReadRunQueueWait(int fd) {
  char text[96];
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return std::nullopt;
  text[n] = '\0';
  unsigned long long run = 0, wait = 0;
  if (std::sscanf(text, "%llu %llu", &run, &wait) != 2) return std::nullopt;
  return wait;
}

std::optional<uint64_t> CpuClockNs(clockid_t clock) {
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return std::nullopt;
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

// The calling thread's schedstat file, opened on first use and closed
// when the thread exits.
class ThreadSchedstat {
 public:
  ThreadSchedstat() : fd_(open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) {}
  ~ThreadSchedstat() {
    if (fd_ >= 0) close(fd_);
  }
  ThreadSchedstat(const ThreadSchedstat&) = delete;
  ThreadSchedstat& operator=(const ThreadSchedstat&) = delete;
  int fd() const { return fd_; }

 private:
  const int fd_;
};

}  // namespace

uint64_t SteadyNowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

SchedTimes SchedTimesSince(const SchedTimes& before, const SchedTimes& after) {
  return SchedTimes{after.cpu_ns > before.cpu_ns ? after.cpu_ns - before.cpu_ns : 0,
                    after.wait_ns > before.wait_ns ? after.wait_ns - before.wait_ns : 0};
}

std::optional<SchedTimes> ThisThreadSchedTimes() {
  thread_local const ThreadSchedstat file;
  if (file.fd() < 0) return std::nullopt;
  const std::optional<uint64_t> wait = ReadRunQueueWait(file.fd());
  const std::optional<uint64_t> cpu = CpuClockNs(CLOCK_THREAD_CPUTIME_ID);
  if (!wait || !cpu) return std::nullopt;
  return SchedTimes{*cpu, *wait};
}

std::optional<SchedTimes> ThisThreadSchedTimesSince(const std::optional<SchedTimes>& start) {
  if (!start) return std::nullopt;
  const std::optional<SchedTimes> end = ThisThreadSchedTimes();
  if (!end) return std::nullopt;
  return SchedTimesSince(*start, *end);
}

std::optional<SchedTimes> SampledThreadSchedTimes(SampleSite site, uint32_t slowdown) {
  thread_local uint32_t calls[2] = {0, 0};
  if (slowdown == 0 || ++calls[static_cast<int>(site)] % (SampleEvery(site) * slowdown) != 0) {
    return std::nullopt;
  }
  return ThisThreadSchedTimes();
}

std::optional<SchedTimes> ProcessSchedTimes() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return std::nullopt;
  const std::optional<uint64_t> cpu = CpuClockNs(CLOCK_PROCESS_CPUTIME_ID);
  if (!cpu) {
    closedir(dir);
    return std::nullopt;
  }
  SchedTimes total{*cpu, 0};
  bool any = false;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string path = std::string("/proc/self/task/") + entry->d_name + "/schedstat";
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // the thread exited meanwhile
    if (const std::optional<uint64_t> wait = ReadRunQueueWait(fd)) {
      total.wait_ns += *wait;
      any = true;
    }
    close(fd);
  }
  closedir(dir);
  if (!any) return std::nullopt;
  return total;
}

uint32_t AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<uint32_t>(n) : 1;
}

}  // namespace symbiosis
