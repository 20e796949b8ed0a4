#include "budget/device_read_cost.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

namespace symbiosis {
namespace {

constexpr uint32_t kAlignment = 4096;

int64_t Nanos(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

std::optional<DeviceReadCost> MeasureDeviceRead(const std::string& file, uint32_t read_bytes,
                                                int reads, uint64_t seed) {
  const int fd = open(file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < read_bytes) {
    close(fd);
    return std::nullopt;
  }
  void* raw = nullptr;
  if (posix_memalign(&raw, kAlignment, read_bytes) != 0) {
    close(fd);
    return std::nullopt;
  }
  std::unique_ptr<void, decltype(&free)> buffer(raw, &free);
  const uint64_t slots = static_cast<uint64_t>(st.st_size) / read_bytes;
  std::mt19937_64 rng(seed);
  std::vector<double> wall, cpu;
  for (int i = 0; i < reads; i++) {
    const off_t offset = static_cast<off_t>(rng() % slots) * read_bytes;
    const int64_t wall0 = Nanos(CLOCK_MONOTONIC), cpu0 = Nanos(CLOCK_THREAD_CPUTIME_ID);
    const ssize_t n = pread(fd, buffer.get(), read_bytes, offset);
    const int64_t cpu1 = Nanos(CLOCK_THREAD_CPUTIME_ID), wall1 = Nanos(CLOCK_MONOTONIC);
    if (n != static_cast<ssize_t>(read_bytes)) break;  // EINVAL: no direct I/O here
    wall.push_back((wall1 - wall0) / 1e3);
    cpu.push_back((cpu1 - cpu0) / 1e3);
  }
  close(fd);
  if (wall.empty()) return std::nullopt;
  return DeviceReadCost{Median(wall), Median(cpu), static_cast<int>(wall.size())};
}

}  // namespace symbiosis
