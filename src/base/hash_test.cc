#include "base/hash.h"

#include <gtest/gtest.h>

#include <bitset>
#include <string>
#include <unordered_set>

namespace symbiosis {
namespace {

TEST(HashStringTest, KeysOfOneShapeDoNotCollide) {
  // Redis-style keys differ in a few digits of one word, or of two.
  std::unordered_set<uint64_t> seen;
  constexpr int kKeys = 1 << 20;
  for (int i = 0; i < kKeys; i++) seen.insert(HashString("key:" + std::to_string(i)));
  EXPECT_EQ(seen.size(), static_cast<size_t>(kKeys));
}

TEST(HashStringTest, LengthAndEveryByteCount) {
  EXPECT_NE(HashString(""), HashString(std::string(1, '\0')));
  EXPECT_NE(HashString("a"), HashString(std::string("a\0", 2)));
  const std::string base(23, 'x');  // two full words and a tail
  std::unordered_set<uint64_t> seen = {HashString(base)};
  for (size_t i = 0; i < base.size(); i++) {
    std::string other = base;
    other[i] = 'y';
    seen.insert(HashString(other));
  }
  EXPECT_EQ(seen.size(), base.size() + 1);
}

// Sampling thresholds the hash: each output bit must flip with about half
// the input bits, and a share of structured keys must fall below a
// threshold in proportion.
TEST(HashStringTest, OneBitFlipsAboutHalfTheOutput) {
  const std::string key = "user:1234567:profile";
  const uint64_t h = HashString(key);
  double flipped = 0;
  int cases = 0;
  for (size_t byte = 0; byte < key.size(); byte++) {
    for (int bit = 0; bit < 8; bit++) {
      std::string other = key;
      other[byte] = static_cast<char>(other[byte] ^ (1 << bit));
      flipped += static_cast<double>(std::bitset<64>(h ^ HashString(other)).count());
      cases++;
    }
  }
  EXPECT_NEAR(flipped / cases, 32.0, 2.0);
}

TEST(HashStringTest, AThresholdSamplesItsShareOfSequentialKeys) {
  constexpr int kKeys = 1 << 20;
  constexpr uint64_t kThreshold = UINT64_MAX / 64;  // R = 1/64
  int below = 0;
  for (int i = 0; i < kKeys; i++) below += HashString("key:" + std::to_string(i)) < kThreshold;
  // Binomial: mean 16384, sd 127.
  EXPECT_NEAR(below, kKeys / 64, 5 * 127);
}

TEST(SeededHash64Test, IsHash64) {
  const SeededHash64 hash(42);
  for (uint64_t b : {uint64_t{0}, uint64_t{1}, uint64_t{0xdeadbeef}, UINT64_MAX}) {
    EXPECT_EQ(hash(b), Hash64(42, b));
  }
  EXPECT_NE(Hash64(1, 2), Hash64(2, 1));
}

}  // namespace
}  // namespace symbiosis
