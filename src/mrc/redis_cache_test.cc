#include "symbiosis/redis_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/hash.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

constexpr uint64_t kSecond = 1'000'000;

RedisCacheOptions Objects(uint64_t capacity, uint32_t samples = 5) {
  RedisCacheOptions o;
  o.capacity = capacity;
  o.samples = samples;
  return o;
}

// jemalloc classes: a dictEntry of 24 bytes takes 32; a 16-byte name, 1 +
// 16 + 1 bytes of sds, 32; a 100-byte value, an object of 16 and 3 + 100 +
// 1 bytes of sds in 112; a value of up to 44 bytes shares one allocation
// with its object.
TEST(RedisCacheTest, AKeyCostsItsAllocationsInJemallocsClasses) {
  EXPECT_EQ(RedisKeyBytes(16, 100), 32u + 32 + 16 + 112);
  EXPECT_EQ(RedisKeyBytes(16, 10), 32u + 32 + 32);   // embedded: 16 + 3 + 10 + 1
  EXPECT_EQ(RedisKeyBytes(16, 44), 32u + 32 + 64);   // embedded: exactly 64
  EXPECT_EQ(RedisKeyBytes(16, 45), 32u + 32 + 16 + 64);
  EXPECT_EQ(RedisKeyBytes(40, 300), 32u + 48 + 16 + 320);  // 3 + 40 + 1; 3 + 300 + 1 -> 320
  EXPECT_EQ(RedisTableBytes(0), 32u);  // four buckets at first
  EXPECT_EQ(RedisTableBytes(4), 32u);
  EXPECT_EQ(RedisTableBytes(5), 64u);
  EXPECT_EQ(RedisTableBytes(10051), 8u * 16384);
}

TEST(RedisCacheTest, ASetsKeyStaysUntilTheNextCommand) {
  RedisCache cache(Objects(1));
  EXPECT_FALSE(cache.Access(0, 1, 0));
  EXPECT_FALSE(cache.Access(kSecond, 2, 0));
  EXPECT_EQ(cache.keys(), 2u);  // evictions run before a command
  EXPECT_TRUE(cache.Access(2 * kSecond, 2, 0));
  EXPECT_EQ(cache.keys(), 1u);
}

// With as many samples as keys every eviction sees them all, yet the pool
// keeps what it drew before with the idle times they had then: a key drawn
// idle at 4 s and requested since can outrank a key idle at 4 s now, and
// is evicted in its place. Exact LRU would evict X, and miss it at t = 6.
TEST(RedisCacheTest, AnEntryLeftInThePoolEvictsAKeyRequestedSince) {
  RedisCache cache(Objects(2));
  const uint64_t kZ = 1, kY = 2, kX = 3, kV = 4;
  EXPECT_FALSE(cache.Access(0, kZ, 0));
  EXPECT_FALSE(cache.Access(1 * kSecond, kY, 0));
  EXPECT_FALSE(cache.Access(2 * kSecond, kX, 0));
  // Z (idle 5), Y (4), X (3) drawn: Z goes, Y and X stay in the pool.
  EXPECT_TRUE(cache.Access(5 * kSecond, kY, 0));
  EXPECT_FALSE(cache.Access(5 * kSecond, kV, 0));
  // Drawn now: X idle 4, Y and V 1; the pool's Y (4, drawn before X's 4)
  // is the idlest entry, and Y is held: Y goes.
  EXPECT_TRUE(cache.Access(6 * kSecond, kX, 0));
  EXPECT_EQ(cache.keys(), 2u);
  EXPECT_FALSE(cache.Access(7 * kSecond, kY, 0));
}

TEST(RedisCacheTest, TheLeastRecentKeyGoesWhereTheSecondsTellKeysApart) {
  RedisCache cache(Objects(2));
  // A B C A D B A B, one a second: exact LRU's hits and misses.
  const std::vector<uint64_t> keys = {1, 2, 3, 1, 4, 2, 1, 2};
  const std::vector<bool> hits = {false, false, false, false, false, false, false, true};
  for (size_t i = 0; i < keys.size(); i++) {
    EXPECT_EQ(cache.Access(i * kSecond, keys[i], 0), hits[i]) << i;
  }
}

// Skewed requests over 20,000 keys, the hottest first.
std::vector<uint64_t> SkewedKeys(size_t n) {
  std::vector<uint64_t> keys;
  uint64_t rng = 7;
  for (size_t i = 0; i < n; i++) {
    const double u = static_cast<double>(SplitMix64(&rng) >> 11) / 9007199254740992.0;
    keys.push_back(static_cast<uint64_t>(20000 * u * u * u));
  }
  return keys;
}

double MissRatio(const std::vector<uint64_t>& keys, double requests_per_second,
                 uint64_t capacity) {
  RedisCache cache(Objects(capacity));
  uint64_t misses = 0;
  for (size_t i = 0; i < keys.size(); i++) {
    const auto time = static_cast<uint64_t>(static_cast<double>(i) / requests_per_second * 1e6);
    if (!cache.Access(time, keys[i], 0)) misses++;
  }
  return static_cast<double>(misses) / keys.size();
}

// The LRU clock ticks once a second: the faster the requests, the more
// keys share a tick and look equally old, and the nearer eviction comes
// to random.
TEST(RedisCacheTest, KeysOfOneSecondLookEquallyOld) {
  const std::vector<uint64_t> keys = SkewedKeys(200000);
  const double slow = MissRatio(keys, 1, 1000);
  const double fast = MissRatio(keys, 1e9, 1000);  // all in the first second
  EXPECT_GT(fast, slow + 0.02) << slow << " " << fast;
}

// 192 bytes a key (a 16-byte name, a 100-byte value) and 8 a bucket: 2048
// bytes hold ten keys in sixteen buckets.
TEST(RedisCacheTest, BytesHoldWhatMaxmemoryCounts) {
  RedisCacheOptions o = Objects(10 * 192 + 16 * 8);
  o.unit = CacheUnit::kBytes;
  RedisCache cache(o);
  for (uint64_t k = 0; k < 100; k++) cache.Access(k * kSecond, k, 100);
  EXPECT_TRUE(cache.Access(100 * kSecond, 99, 100));
  EXPECT_EQ(cache.keys(), 10u);
  EXPECT_EQ(cache.used(), 10u * 192 + 128);
}

// At one key a bucket the table would double to 32 buckets, 128 bytes
// more than maxmemory leaves; below a load of 1.618 Redis keeps 16, and
// sixteen keys fit where fifteen would with the larger table.
TEST(RedisCacheTest, TheTableDoublesOnlyWhereMemoryAllows) {
  RedisCacheOptions o = Objects(16 * 192 + 16 * 8);
  o.unit = CacheUnit::kBytes;
  RedisCache cache(o);
  for (uint64_t k = 0; k < 100; k++) cache.Access(k * kSecond, k, 100);
  EXPECT_TRUE(cache.Access(100 * kSecond, 99, 100));
  EXPECT_EQ(cache.keys(), 16u);
  EXPECT_EQ(cache.used(), 16u * 192 + 128);
}

TEST(RedisCacheTest, BadOptionsAreInputErrors) {
  EXPECT_THROW(RedisCache(Objects(0)), InputError);
  EXPECT_THROW(RedisCache(Objects(10, 0)), InputError);
  EXPECT_THROW(RedisCache(Objects(10, 65)), InputError);
  RedisCacheOptions o = Objects(1000);
  o.unit = CacheUnit::kBytes;
  o.key_bytes = 0;
  EXPECT_THROW(RedisCache{o}, InputError);
}

TEST(RedisSimMrcTest, OneModelPerSizeAtTheRequestsTimes) {
  const std::vector<uint64_t> keys = SkewedKeys(50000);
  RedisSimOptions o;
  const std::vector<uint64_t> sizes = {100, 1000, 5000};
  RedisSimMrc sim(o, sizes);
  for (size_t i = 0; i < keys.size(); i++) sim.AccessAt(keys[i], 1, i * kSecond / 1000);
  const MissRatioCurve curve = sim.Curve(sizes);
  ASSERT_EQ(curve.miss_ratios.size(), 3u);
  EXPECT_EQ(curve.requests, keys.size());
  EXPECT_GT(curve.miss_ratios[0], curve.miss_ratios[1]);
  EXPECT_GT(curve.miss_ratios[1], curve.miss_ratios[2]);
  // The same requests alone, at the same size: the same misses.
  EXPECT_NEAR(curve.miss_ratios[1], MissRatio(keys, 1000, 1000), 1e-12);
  EXPECT_THROW(sim.Curve({100, 1000}), InputError);
  EXPECT_THROW(sim.Access(1, 1), InputError);  // no times, no rate
}

TEST(RedisSimMrcTest, ARequestRateGivesTimes) {
  const std::vector<uint64_t> keys = SkewedKeys(50000);
  RedisSimOptions o;
  o.request_rate = 1000;
  RedisSimMrc sim(o, {1000});
  for (const uint64_t k : keys) sim.Access(k, 1);
  EXPECT_NEAR(sim.Curve({1000}).miss_ratios[0], MissRatio(keys, 1000, 1000), 1e-12);
  o.request_rate = -1;
  EXPECT_THROW(RedisSimMrc(o, {1000}), InputError);
}

}  // namespace
}  // namespace symbiosis
