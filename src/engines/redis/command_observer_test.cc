#include "engines/redis/command_observer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/hash.h"
#include "symbiosis/error.h"
#include "symbiosis/redis_cache.h"

namespace symbiosis {
namespace {

std::vector<std::string_view> Argv(const std::vector<std::string>& words) {
  return {words.begin(), words.end()};
}

TEST(CommandObserverTest, ReadsAreRequestsAndWritesGiveSizes) {
  CommandObserverOptions o;
  o.rate = 1;
  o.ks = {5};
  CommandObserver observer(o);
  const std::vector<std::vector<std::string>> commands = {
      {"GET", "a"},           {"set", "a", std::string(100, 'v')}, {"Get", "a"},
      {"MGET", "a", "b", "c"}, {"MSET", "b", "1", "c", "22"},         {"SETEX", "d", "10", "v"},
      {"GETSET", "d", "w"},   {"INCR", "e"},                          {"PING"},
      {"GETDEL", "d"}};
  for (const auto& c : commands) {
    std::vector<std::string> words = c;
    observer.Observe(Argv(words));
  }
  const ObserverStats s = observer.Stats();
  EXPECT_EQ(s.commands, commands.size());
  EXPECT_EQ(s.reads, 1u + 1 + 3 + 1 + 1);    // GET, Get, MGET's three, GETSET, GETDEL
  EXPECT_EQ(s.writes, 1u + 2 + 1 + 1);       // set, MSET's two, SETEX, GETSET
  EXPECT_EQ(s.sampled_reads, s.reads);       // R = 1
  EXPECT_EQ(s.sized_keys, 4u);               // a, b, c, d
}

// A cache-aside stream at R = 1: the working set is what the server's
// used_memory grows by to hold every key (RedisKeyBytes of its name and
// value), and a larger K misses less where the cache is small.
TEST(CommandObserverTest, CurvesInTheServersBytes) {
  CommandObserverOptions o;
  o.rate = 1;
  o.ks = {1, 16};
  CommandObserver observer(o);
  uint64_t rng = 3;
  std::vector<bool> seen(2000);
  uint64_t expected = 0;
  for (int i = 0; i < 100000; i++) {
    const double u = static_cast<double>(SplitMix64(&rng) >> 11) / 9007199254740992.0;
    const uint64_t k = static_cast<uint64_t>(2000 * u * u * u);
    std::string key = "key:" + std::to_string(k);
    std::vector<std::string> get = {"GET", key};
    observer.Observe(Argv(get));
    if (!seen[k]) {
      seen[k] = true;
      std::vector<std::string> set = {"SET", key, std::string(200 + k % 300, 'v')};
      observer.Observe(Argv(set));
      expected += RedisKeyBytes(static_cast<uint32_t>(key.size()), 200 + k % 300);
    }
  }
  EXPECT_NEAR(static_cast<double>(observer.WorkingSet()), static_cast<double>(expected),
              0.02 * static_cast<double>(expected));
  const std::vector<MissRatioCurve> curves = observer.Curves(10);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_GT(curves[0].miss_ratios[1], curves[1].miss_ratios[1]);  // K=1 is random
  EXPECT_GT(curves[1].miss_ratios[0], curves[1].miss_ratios[9]);
  observer.Reset();
  EXPECT_TRUE(observer.Curves(10).empty());
  EXPECT_EQ(observer.Stats().reads, 0u);
}

// With no write seen, a key weighs its name and a 64-byte value, short
// names (from a table) and long ones alike.
TEST(CommandObserverTest, BeforeAnyWriteAKeyWeighsItsNameAndA64ByteValue) {
  CommandObserverOptions o;
  o.rate = 1;
  o.ks = {5};
  CommandObserver observer(o);
  uint64_t expected = 0;
  for (const size_t length : {1, 10, 63, 64, 200}) {
    std::vector<std::string> get = {"GET", std::string(length, 'k')};
    observer.Observe(Argv(get));
    expected += RedisKeyBytes(static_cast<uint32_t>(length), 64);
  }
  EXPECT_EQ(observer.WorkingSet(), expected);
}

TEST(CommandObserverTest, ASampleSeesItsShareOfTheKeys) {
  CommandObserverOptions o;
  o.rate = 0.01;
  o.min_keys = 100;
  CommandObserver observer(o);
  for (int i = 0; i < 200000; i++) {
    std::vector<std::string> get = {"GET", "k" + std::to_string(i % 50000)};
    observer.Observe(Argv(get));
  }
  const ObserverStats s = observer.Stats();
  EXPECT_DOUBLE_EQ(s.rate, 0.01);
  // All keys until the floor fills, then 1%.
  EXPECT_NEAR(static_cast<double>(s.sampled_reads), 0.01 * s.reads, 0.005 * s.reads);
}

// The stacks on their own thread (the module's way) take the very reads
// of the same commands observed in line: KRR's halves keep their order and
// a key a halving dropped while queued is dropped on the thread too. The
// curves differ only by the sizes remembered: while a halving is on its
// way the command's thread still records the writes of keys it drops.
TEST(CommandObserverTest, InTheBackgroundTheCurvesAreTheSame) {
  CommandObserverOptions o;
  o.rate = 0.05;
  o.min_keys = 200;  // halvings while reads are queued
  o.ks = {1, 5, 16};
  CommandObserver inline_observer(o);
  o.background = true;
  o.cpu_budget = 0;  // the same sample as inline, however long it takes
  CommandObserver background(o);
  uint64_t rng = 11;
  for (int i = 0; i < 300000; i++) {
    const double u = static_cast<double>(SplitMix64(&rng) >> 11) / 9007199254740992.0;
    const std::string key = "k" + std::to_string(static_cast<uint64_t>(40000 * u * u));
    std::vector<std::string> command = {"GET", key};
    if (i % 7 == 0) command = {"SET", key, std::string(i % 500, 'v')};
    inline_observer.Observe(Argv(command));
    background.Observe(Argv(command));
    // The thread wakes every 10 ms; this loop fills the ring faster than a
    // server's reads would: let it catch up now and then.
    if (i % 3000 == 0) background.Drain();
  }
  background.Drain();
  const ObserverStats a = inline_observer.Stats();
  const ObserverStats b = background.Stats();
  ASSERT_EQ(b.dropped_reads, 0u) << "the ring overflowed: the comparison needs every read";
  EXPECT_EQ(a.sampled_reads, b.sampled_reads);
  EXPECT_LT(b.rate, 1.0);  // halved
  const std::vector<MissRatioCurve> want = inline_observer.Curves(12);
  const std::vector<MissRatioCurve> got = background.Curves(12);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++) {
    for (size_t j = 0; j < got[i].sizes.size(); j++) {
      EXPECT_NEAR(got[i].sizes[j], want[i].sizes[j], 0.001 * want[i].sizes[j]);
      EXPECT_NEAR(got[i].miss_ratios[j], want[i].miss_ratios[j], 0.002) << "K=" << o.ks[i];
    }
  }
  EXPECT_GT(b.memory_bytes, a.memory_bytes);  // the ring
}

// Reads queued before a RESET do not reach the new curves.
TEST(CommandObserverTest, ResetDropsWhatIsQueued) {
  CommandObserverOptions o;
  o.rate = 1;
  o.ks = {5};
  o.background = true;
  CommandObserver observer(o);
  for (int round = 0; round < 50; round++) {
    for (int i = 0; i < 2000; i++) {
      std::vector<std::string> get = {"GET", "old" + std::to_string(i)};
      observer.Observe(Argv(get));
    }
    observer.Reset();
    std::vector<std::string> get = {"GET", "new"};
    observer.Observe(Argv(get));
    observer.Drain();
    ASSERT_EQ(observer.Stats().sampled_reads, 1u);
    const std::vector<MissRatioCurve> curves = observer.Curves(4);
    ASSERT_EQ(curves.size(), 1u);
    EXPECT_EQ(curves[0].sampled_requests, 1u) << "round " << round;
  }
}

// A thread over its CPU budget halves the sample, below the rate asked
// for; without a budget it keeps the rate.
TEST(CommandObserverTest, TheCpuBudgetLowersTheRate) {
  for (const double budget : {1e-9, 0.0}) {
    CommandObserverOptions o;
    o.rate = 0.5;
    o.min_keys = 0;
    o.background = true;
    o.cpu_budget = budget;
    CommandObserver observer(o);
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(2500);
    for (uint64_t i = 0; std::chrono::steady_clock::now() < end; i++) {
      observer.Observe(Argv({"GET", "key:" + std::to_string(i % 5000)}));
    }
    observer.Drain();
    const ObserverStats s = observer.Stats();
    if (budget > 0) {
      EXPECT_GE(s.rate_lowered, 1u);
      EXPECT_LT(s.rate, 0.5);
      EXPECT_NEAR(s.rate, 0.5 / static_cast<double>(uint64_t{1} << s.rate_lowered), 1e-9);
      EXPECT_FALSE(observer.Curves(8).empty());  // the curves go on, sparser
    } else {
      EXPECT_EQ(s.rate_lowered, 0u);
      EXPECT_DOUBLE_EQ(s.rate, 0.5);
    }
  }
}

TEST(CommandObserverTest, BadOptionsAreInputErrors) {
  CommandObserverOptions o;
  o.ks = {};
  EXPECT_THROW(CommandObserver{o}, InputError);
  o.ks = {65};
  EXPECT_THROW(CommandObserver{o}, InputError);
  o.ks = {0};  // exact LRU's curve alone: no error
  EXPECT_NO_THROW(CommandObserver{o});
  o.ks = {5};
  o.cpu_budget = 1.5;
  EXPECT_THROW(CommandObserver{o}, InputError);
  o.cpu_budget = 0.01;
  o.rate = 0;
  EXPECT_THROW(CommandObserver{o}, InputError);
}

}  // namespace
}  // namespace symbiosis
