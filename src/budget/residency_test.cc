#include "budget/residency.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "symbiosis/block.h"

namespace symbiosis {
namespace {

constexpr uint64_t kFilePages = 256;

// A 1 MiB file on a disk-backed file system, written, synced and dropped
// from the page cache. Skips when the pages cannot be dropped (tmpfs keeps
// file pages in memory whatever fadvise says).
class ResidencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmpdir = getenv("TMPDIR");
    for (std::string dir : {std::string(tmpdir ? tmpdir : "/var/tmp"),
                            std::string("/var/tmp"), std::string(".")}) {
      fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      if (fd_ >= 0) break;
    }
    if (fd_ < 0) GTEST_SKIP() << "no directory supports O_TMPFILE";
    std::vector<char> data(kFilePages * kPageSize, 'r');
    ASSERT_EQ(write(fd_, data.data(), data.size()),
              static_cast<ssize_t>(data.size()));
    ASSERT_EQ(fsync(fd_), 0);
    ASSERT_EQ(posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED), 0);
    if (ResidencyProbe::Works(fd_, ResidencyMethod::kMincore) &&
        ResidencyProbe(fd_, ResidencyMethod::kMincore)
                .ResidentPages(0, kFilePages * kPageSize) != 0) {
      GTEST_SKIP() << "fadvise(DONTNEED) left pages cached (tmpfs?); set "
                      "TMPDIR to a disk-backed directory";
    }
  }

  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }

  // Reads one page the ordinary way.
  void ReadPage(uint64_t page) {
    char buffer[kPageSize];
    ASSERT_EQ(pread(fd_, buffer, kPageSize, page * kPageSize),
              static_cast<ssize_t>(kPageSize));
  }

  // Whether `method` works here; prints why its checks are skipped if not.
  bool Usable(ResidencyMethod method) {
    if (ResidencyProbe::Works(fd_, method)) return true;
    std::printf("skipping %s checks: unavailable on this kernel\n",
                ResidencyMethodName(method).c_str());
    return false;
  }

  int fd_ = -1;
};

TEST_F(ResidencyTest, DroppedFileIsNotResident) {
  for (ResidencyMethod method :
       {ResidencyMethod::kCachestat, ResidencyMethod::kMincore}) {
    if (!Usable(method)) continue;
    ResidencyProbe probe(fd_, method);
    EXPECT_EQ(probe.ResidentPages(0, kFilePages * kPageSize), 0u)
        << ResidencyMethodName(method);
    EXPECT_FALSE(probe.IsResident(100 * kPageSize, 1));
  }
}

TEST_F(ResidencyTest, ReadPageBecomesResident) {
  ReadPage(100);
  for (ResidencyMethod method :
       {ResidencyMethod::kCachestat, ResidencyMethod::kMincore,
        ResidencyMethod::kPreadNowait}) {
    if (!Usable(method)) continue;
    ResidencyProbe probe(fd_, method);
    EXPECT_TRUE(probe.IsResident(100 * kPageSize, kPageSize))
        << ResidencyMethodName(method);
    // Any byte range inside the page is the same page.
    EXPECT_TRUE(probe.IsResident(100 * kPageSize + 17, 100))
        << ResidencyMethodName(method);
  }
}

TEST_F(ResidencyTest, PartialRangeCountsPages) {
  ReadPage(200);
  for (ResidencyMethod method :
       {ResidencyMethod::kCachestat, ResidencyMethod::kMincore}) {
    if (!Usable(method)) continue;
    ResidencyProbe probe(fd_, method);
    // Pages 199..201 with only 200 read: one page, unless read-ahead
    // brought 201 too; never 199, which lies before the read.
    uint64_t resident = probe.ResidentPages(199 * kPageSize, 3 * kPageSize);
    EXPECT_GE(resident, 1u) << ResidencyMethodName(method);
    EXPECT_FALSE(probe.IsResident(199 * kPageSize, kPageSize));
    EXPECT_FALSE(probe.IsResident(199 * kPageSize, 2 * kPageSize));
  }
}

// The side-effect-free methods must not bring a page in; the second
// method checks the first.
TEST_F(ResidencyTest, ProbeDoesNotMakePagesResident) {
  if (!Usable(ResidencyMethod::kCachestat) ||
      !Usable(ResidencyMethod::kMincore)) {
    return;
  }
  ResidencyProbe cachestat(fd_, ResidencyMethod::kCachestat);
  ResidencyProbe mincore(fd_, ResidencyMethod::kMincore);
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(cachestat.IsResident(50 * kPageSize, 4 * kPageSize));
    EXPECT_FALSE(mincore.IsResident(60 * kPageSize, 4 * kPageSize));
  }
  EXPECT_EQ(mincore.ResidentPages(50 * kPageSize, 4 * kPageSize), 0u);
  EXPECT_EQ(cachestat.ResidentPages(60 * kPageSize, 4 * kPageSize), 0u);
}

// Documents why preadv2(RWF_NOWAIT) is the last resort: on Linux >= 5.x a
// miss returns EAGAIN but starts read-ahead of the page anyway.
TEST_F(ResidencyTest, PreadNowaitMissStillReadsThePage) {
  if (!Usable(ResidencyMethod::kCachestat)) return;
  ResidencyProbe nowait(fd_, ResidencyMethod::kPreadNowait);
  ResidencyProbe cachestat(fd_, ResidencyMethod::kCachestat);
  EXPECT_FALSE(nowait.IsResident(150 * kPageSize, kPageSize));
  // The read-ahead it started may still be in flight; cachestat counts
  // pages under I/O, so no wait is needed.
  uint64_t after = cachestat.ResidentPages(150 * kPageSize, kPageSize);
  std::printf("preadv2(RWF_NOWAIT) miss left %s\n",
              after ? "the page cached (read-ahead ran)" : "no page cached");
}

TEST_F(ResidencyTest, DefaultPicksASideEffectFreeMethodWhenPossible) {
  ResidencyProbe probe(fd_);
  if (ResidencyProbe::Works(fd_, ResidencyMethod::kCachestat)) {
    EXPECT_EQ(probe.method(), ResidencyMethod::kCachestat);
  } else {
    EXPECT_EQ(probe.method(), ResidencyMethod::kMincore);
  }
}

}  // namespace
}  // namespace symbiosis
