#include "symbiosis/cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace symbiosis {
namespace {

// A hybrid machine: v1 controllers, and cgroup2 without memory.
constexpr char kV1ProcCgroup[] =
    "9:name=systemd:/\n"
    "4:memory:/process_api/70d59f29\n"
    "3:cpu,cpuacct:/\n"
    "0::/\n";
constexpr char kV1Mountinfo[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup "
    "rw,memory\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

constexpr char kV2ProcCgroup[] = "0::/user.slice/user-1000.slice/session-2\n";
constexpr char kV2Mountinfo[] =
    "25 21 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - "
    "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

TEST(FindMemoryCgroupTest, V1UsesTheMemoryLine) {
  auto cgroup = FindMemoryCgroup(kV1ProcCgroup, kV1Mountinfo);
  ASSERT_TRUE(cgroup.has_value());
  EXPECT_EQ(cgroup->version, CgroupVersion::kV1);
  EXPECT_EQ(cgroup->dir, "/sys/fs/cgroup/memory/process_api/70d59f29");
}

TEST(FindMemoryCgroupTest, V2UsesTheUnifiedLine) {
  auto cgroup = FindMemoryCgroup(kV2ProcCgroup, kV2Mountinfo);
  ASSERT_TRUE(cgroup.has_value());
  EXPECT_EQ(cgroup->version, CgroupVersion::kV2);
  EXPECT_EQ(cgroup->dir, "/sys/fs/cgroup/user.slice/user-1000.slice/session-2");
}

TEST(FindMemoryCgroupTest, RootCgroupIsTheMountPoint) {
  auto cgroup = FindMemoryCgroup("0::/\n", kV2Mountinfo);
  ASSERT_TRUE(cgroup.has_value());
  EXPECT_EQ(cgroup->dir, "/sys/fs/cgroup");
}

// In a container the mount shows a subtree: its root field is not "/".
TEST(FindMemoryCgroupTest, MountRootIsStripped) {
  auto cgroup = FindMemoryCgroup(
      "0::/docker/abc/inner\n",
      "25 21 0:23 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(cgroup.has_value());
  EXPECT_EQ(cgroup->dir, "/sys/fs/cgroup/inner");
  EXPECT_FALSE(FindMemoryCgroup(
      "0::/docker/abcdef\n",
      "25 21 0:23 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"));
}

TEST(FindMemoryCgroupTest, EscapedMountPoint) {
  auto cgroup = FindMemoryCgroup(
      "0::/a\n", "25 21 0:23 / /mnt/my\\040cgroups rw - cgroup2 none rw\n");
  ASSERT_TRUE(cgroup.has_value());
  EXPECT_EQ(cgroup->dir, "/mnt/my cgroups/a");
}

TEST(FindMemoryCgroupTest, NothingMountedIsNullopt) {
  EXPECT_FALSE(FindMemoryCgroup(kV1ProcCgroup, ""));
  EXPECT_FALSE(FindMemoryCgroup(kV2ProcCgroup, ""));
  // The v1 memory line without a v1 memory mount: cgroup2 cannot hold it.
  EXPECT_FALSE(FindMemoryCgroup(kV1ProcCgroup, kV2Mountinfo));
}

TEST(ParseMemoryLimitTest, NumbersMaxAndV1Unlimited) {
  EXPECT_EQ(ParseMemoryLimit("67108864\n"), 67108864u);
  EXPECT_EQ(ParseMemoryLimit("max\n"), std::nullopt);
  EXPECT_EQ(ParseMemoryLimit("9223372036854771712\n"), std::nullopt);
  EXPECT_THROW(ParseMemoryLimit("64M"), CgroupError);
  EXPECT_THROW(ParseMemoryLimit(""), CgroupError);
}

TEST(ParseMemoryStatTest, NameValueLines) {
  auto stat = ParseMemoryStat(
      "cache 4673536\nrss 1671168\ntotal_cache 4673536\n"
      "hierarchical_memory_limit 9223372036854771712\nbroken\n");
  EXPECT_EQ(stat.at("cache"), 4673536u);
  EXPECT_EQ(stat.at("rss"), 1671168u);
  EXPECT_EQ(stat.at("hierarchical_memory_limit"), 9223372036854771712u);
  EXPECT_EQ(stat.count("broken"), 0u);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool DirExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Create, limit, run a process inside, remove. Needs a writable memory
// controller; skips with the reason otherwise.
TEST(ChildCgroupTest, RoundTrip) {
  std::unique_ptr<ChildCgroup> child;
  try {
    MemoryCgroup self = DetectMemoryCgroup();
    child = ChildCgroup::Create(
        self, "symbiosis-test-" + std::to_string(getpid()), 32 << 20);
  } catch (const CgroupError& e) {
    GTEST_SKIP() << e.what();
  }
  std::string dir = child->cgroup().dir;
  ASSERT_TRUE(DirExists(dir));
  EXPECT_EQ(ReadMemoryLimit(child->cgroup()), uint64_t{32} << 20);

  // The child checks that /proc/self/cgroup names the new cgroup.
  std::string leaf = dir.substr(dir.rfind('/'));
  int status = RunInChildCgroup(
      *child,
      [&] {
        std::string own = Slurp("/proc/self/cgroup");
        return own.find(leaf + "\n") != std::string::npos ? 0 : 3;
      },
      [] {});
  EXPECT_EQ(status, 0);
  EXPECT_LE(child->ReadUsage().usage, uint64_t{32} << 20);

  child.reset();
  EXPECT_FALSE(DirExists(dir));
}

// A run killed with SIGKILL leaves its cgroup behind; the next run removes
// those whose process is gone, and no other.
TEST(ChildCgroupTest, OrphansOfKilledRunsAreRemoved) {
  MemoryCgroup self;
  try {
    self = DetectMemoryCgroup();
  } catch (const CgroupError& e) {
    GTEST_SKIP() << e.what();
  }
  const pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  const std::string prefix = "symbiosis-orphan-test-";
  const std::string orphan = self.dir + "/" + prefix + std::to_string(gone);
  const std::string alive = self.dir + "/" + prefix + std::to_string(getpid());
  const std::string other = self.dir + "/" + prefix + "x1";
  if (mkdir(orphan.c_str(), 0755) != 0) {
    GTEST_SKIP() << "cannot create a cgroup under " << self.dir << ": " << strerror(errno);
  }
  ASSERT_EQ(mkdir(alive.c_str(), 0755), 0);
  ASSERT_EQ(mkdir(other.c_str(), 0755), 0);
  EXPECT_EQ(RemoveOrphanedChildCgroups(self, prefix), 1);
  EXPECT_FALSE(DirExists(orphan));
  EXPECT_TRUE(DirExists(alive));
  EXPECT_TRUE(DirExists(other));
  rmdir(alive.c_str());
  rmdir(other.c_str());
}

// A driver whose output pipe closed (its wrapper script was killed) must
// outlive the write that finds out, to remove its cgroup: the guard turns
// SIGPIPE, like SIGINT, SIGTERM and SIGHUP, into a record, and gives the
// previous action back when it ends.
TEST(InterruptGuardTest, RecordsSigpipeAndHangupInsteadOfDying) {
  for (const int sig : {SIGPIPE, SIGHUP, SIGTERM}) {
    struct sigaction before = {};
    ASSERT_EQ(sigaction(sig, nullptr, &before), 0);
    {
      InterruptGuard guard;
      EXPECT_EQ(InterruptGuard::received(), 0);
      ASSERT_EQ(raise(sig), 0);
      EXPECT_EQ(InterruptGuard::received(), sig);
    }
    struct sigaction now = {};
    ASSERT_EQ(sigaction(sig, nullptr, &now), 0);
    EXPECT_EQ(now.sa_handler, before.sa_handler) << sig;
  }
}

}  // namespace
}  // namespace symbiosis
