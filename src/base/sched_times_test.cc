#include "symbiosis/sched_times.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <time.h>

#include <chrono>
#include <thread>

namespace symbiosis {
namespace {

void Spin(std::chrono::milliseconds d) {
  const auto end = std::chrono::steady_clock::now() + d;
  volatile uint64_t x = 0;
  while (std::chrono::steady_clock::now() < end) x = x + 1;
}

// Spins until this thread has run for `d` of CPU time: on a busy machine
// (ctest -j) a wall-clock spin may get far less.
void SpinCpu(std::chrono::milliseconds d) {
  auto cpu_ns = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
  };
  const uint64_t end = cpu_ns() + uint64_t(std::chrono::nanoseconds(d).count());
  volatile uint64_t x = 0;
  while (cpu_ns() < end) x = x + 1;
}

TEST(SchedTimesTest, SinceSubtractsAndClampsAtZero) {
  const SchedTimes d = SchedTimesSince({100, 50}, {250, 40});
  EXPECT_EQ(d.cpu_ns, 150u);
  EXPECT_EQ(d.wait_ns, 0u);
}

TEST(SchedTimesTest, SinceAStartOfThisThread) {
  EXPECT_FALSE(ThisThreadSchedTimesSince(std::nullopt));
  const std::optional<SchedTimes> start = ThisThreadSchedTimes();
  if (!start) GTEST_SKIP() << "this kernel has no schedstat (/proc/thread-self/schedstat)";
  SpinCpu(std::chrono::milliseconds(30));
  const std::optional<SchedTimes> d = ThisThreadSchedTimesSince(start);
  ASSERT_TRUE(d);
  EXPECT_GE(d->cpu_ns, 20'000'000u);
}

TEST(SchedTimesTest, ThreadCpuTimeGrowsWhenSpinningNotWhenSleeping) {
  const std::optional<SchedTimes> a = ThisThreadSchedTimes();
  if (!a) GTEST_SKIP() << "this kernel has no schedstat (/proc/thread-self/schedstat)";
  SpinCpu(std::chrono::milliseconds(30));
  const std::optional<SchedTimes> b = ThisThreadSchedTimes();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::optional<SchedTimes> c = ThisThreadSchedTimes();
  ASSERT_TRUE(b && c);
  EXPECT_GE(SchedTimesSince(*a, *b).cpu_ns, 20'000'000u);  // spinning ran
  EXPECT_LT(SchedTimesSince(*b, *c).cpu_ns, 10'000'000u);  // sleeping did not
}

// Two spinning threads pinned to one CPU: each waits runnable while the
// other runs.
TEST(SchedTimesTest, WaitGrowsWhenThreadsShareOneCpu) {
  if (!ThisThreadSchedTimes()) GTEST_SKIP() << "this kernel has no schedstat";
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  SchedTimes waited[2];
  auto work = [&](int i) {
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    const SchedTimes before = *ThisThreadSchedTimes();
    Spin(std::chrono::milliseconds(200));
    waited[i] = SchedTimesSince(before, *ThisThreadSchedTimes());
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_GT(waited[0].wait_ns + waited[1].wait_ns, 50'000'000u);
}

TEST(SchedTimesTest, EachSiteSamplesOnceInItsEveryAndCountsApart) {
  if (!ThisThreadSchedTimes()) GTEST_SKIP() << "this kernel has no schedstat";
  int device = 0, hits = 0;
  // Interleaved, as reads that hit and miss are: each site keeps its count.
  for (int i = 0; i < 1024; i++) {
    device += SampledThreadSchedTimes(SampleSite::kDeviceRead).has_value();
    hits += SampledThreadSchedTimes(SampleSite::kSecondTierHit).has_value();
  }
  EXPECT_EQ(device, 1024 / static_cast<int>(SampleEvery(SampleSite::kDeviceRead)));
  EXPECT_EQ(hits, 1024 / static_cast<int>(SampleEvery(SampleSite::kSecondTierHit)));
  // A slowdown samples that many times fewer; 0 none.
  int slowed = 0, none = 0;
  for (int i = 0; i < 1024; i++) {
    slowed += SampledThreadSchedTimes(SampleSite::kDeviceRead, 8).has_value();
    none += SampledThreadSchedTimes(SampleSite::kDeviceRead, 0).has_value();
  }
  EXPECT_EQ(slowed, 1024 / static_cast<int>(8 * SampleEvery(SampleSite::kDeviceRead)));
  EXPECT_EQ(none, 0);
}

TEST(SchedTimesTest, ProcessTimesCoverTheCallingThread) {
  const std::optional<SchedTimes> thread = ThisThreadSchedTimes();
  if (!thread) GTEST_SKIP() << "this kernel has no schedstat";
  const std::optional<SchedTimes> process = ProcessSchedTimes();
  ASSERT_TRUE(process);
  EXPECT_GE(process->cpu_ns, thread->cpu_ns);
}

TEST(SchedTimesTest, AllowedCpusFollowsTheAffinityMask) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  EXPECT_EQ(AllowedCpus(), static_cast<uint32_t>(CPU_COUNT(&saved)));
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(AllowedCpus(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

}  // namespace
}  // namespace symbiosis
