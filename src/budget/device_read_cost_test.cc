#include "budget/device_read_cost.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "budget/residency.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

constexpr uint32_t kReadBytes = 32 * 1024;

void WriteFile(const std::string& path, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out << std::string(bytes, 'd');
}

TEST(DeviceReadCostTest, ReadsTheFileWithoutCachingIt) {
  testing::TempDir dir;
  const std::string path = dir.path("table");
  WriteFile(path, 64 * kReadBytes);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fdatasync(fd), 0);
  ASSERT_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  const ResidencyProbe residency(fd);
  const uint64_t cached_before = residency.ResidentPages(0, 64 * kReadBytes);

  const std::optional<DeviceReadCost> cost = MeasureDeviceRead(path, kReadBytes, 16);
  if (!cost) {
    close(fd);
    GTEST_SKIP() << "no direct I/O under " << path << " (tmpfs?); set TMPDIR to a disk";
  }
  EXPECT_EQ(cost->reads, 16);
  EXPECT_GT(cost->wall_us, 0);
  EXPECT_GT(cost->cpu_us, 0);
  // The thread's CPU time within a read cannot exceed its wall time (one
  // microsecond of slack for the clocks' granularity).
  EXPECT_LE(cost->cpu_us, cost->wall_us + 1);
  EXPECT_EQ(residency.ResidentPages(0, 64 * kReadBytes), cached_before);
  close(fd);
}

TEST(DeviceReadCostTest, NothingToMeasureIsNoCost) {
  testing::TempDir dir;
  EXPECT_FALSE(MeasureDeviceRead(dir.path("missing"), kReadBytes, 4));
  WriteFile(dir.path("small"), kReadBytes - 1);
  EXPECT_FALSE(MeasureDeviceRead(dir.path("small"), kReadBytes, 4));
}

}  // namespace
}  // namespace symbiosis
