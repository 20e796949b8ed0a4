#include "base/thread_counters.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace symbiosis {
namespace {

struct Counts {
  Counter adds;
  Counter total;
  Counter by_bucket[3];
};

TEST(ThreadCountersTest, AnArrayFieldsElementsAreSeparateCounters) {
  auto counters = std::make_unique<ThreadCounters<Counts>>();
  counters->Mine().Add(&Counts::by_bucket, 0, 2);
  counters->Mine().Add(&Counts::by_bucket, 2, 5);
  EXPECT_EQ(counters->Mine().Add(&Counts::by_bucket, 2, 1), 6u);
  uint64_t sums[3] = {0, 0, 0};
  counters->ForEach([&](const Counts& c) {
    for (int i = 0; i < 3; ++i) sums[i] += c.by_bucket[i].Load();
  });
  EXPECT_EQ(sums[0], 2u);
  EXPECT_EQ(sums[1], 0u);
  EXPECT_EQ(sums[2], 6u);
  EXPECT_EQ(counters->Sum(&Counts::adds), 0u);
}

TEST(ThreadIndexTest, StableWithinAThread) { EXPECT_EQ(ThreadIndex(), ThreadIndex()); }

TEST(ThreadIndexTest, UniqueAmongLiveThreadsAndReusedAfterExit) {
  const uint32_t main_index = ThreadIndex();
  constexpr int kThreads = 8;
  std::vector<uint32_t> live(kThreads);
  {
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        live[i] = ThreadIndex();
        ready.fetch_add(1);
        while (!go.load()) std::this_thread::yield();  // all alive at once
      });
    }
    while (ready.load() < kThreads) std::this_thread::yield();
    go.store(true);
    for (std::thread& t : threads) t.join();
  }
  const std::set<uint32_t> distinct(live.begin(), live.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(distinct.count(main_index), 0u);  // this thread is alive too
  // The eight have exited: a new thread gets one of their indexes, the
  // smallest free one, not a ninth.
  uint32_t later = 0;
  std::thread([&] { later = ThreadIndex(); }).join();
  EXPECT_EQ(later, *distinct.begin());
}

// More threads than owned slots, all adding at once: the owned slots and
// the shared one together lose no add.
TEST(ThreadCountersTest, SumsEveryAddAlsoBeyondTheOwnedSlots) {
  using Counters = ThreadCounters<Counts>;
  auto counters = std::make_unique<Counters>();
  const int threads_count = Counters::kOwnedSlots + 16;
  constexpr uint64_t kAdds = 20'000;
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  for (int i = 0; i < threads_count; ++i) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      Counters::Writer mine = counters->Mine();
      for (uint64_t k = 0; k < kAdds; ++k) {
        mine.Add(&Counts::adds, 1);
        mine.Add(&Counts::total, 3);
      }
    });
  }
  while (ready.load() < threads_count) std::this_thread::yield();
  go.store(true);
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counters->Sum(&Counts::adds), threads_count * kAdds);
  EXPECT_EQ(counters->Sum(&Counts::total), 3 * threads_count * kAdds);
}

TEST(ThreadCountersTest, AddReturnsTheSlotsNewValue) {
  ThreadCounters<Counts> counters;
  auto mine = counters.Mine();
  EXPECT_EQ(mine.Add(&Counts::adds, 5), 5u);
  EXPECT_EQ(mine.Add(&Counts::adds, 2), 7u);
  EXPECT_EQ(counters.Sum(&Counts::adds), 7u);
  EXPECT_EQ(counters.Sum(&Counts::total), 0u);
}

}  // namespace
}  // namespace symbiosis
