// Strong 64-bit mixing for keys and sampling.
//
// Keys are 64-bit (file id, offset) pairs; the reference implementation
// packed them into 32 bits and aliased once a file passed 16 MB. Mix64 is
// the finalizer of MurmurHash3 (fmix64): every input bit flips each output
// bit with probability close to 1/2, so thresholding the output samples
// a uniform fraction of keys whatever their structure.

#ifndef SYMBIOSIS_HASH_H_
#define SYMBIOSIS_HASH_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace symbiosis {

inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Hash64(a, b) for one a and many b: a's half is mixed once, so each
// call is one Mix64.
class SeededHash64 {
 public:
  explicit SeededHash64(uint64_t a) : mixed_(Mix64(a ^ 0x9e3779b97f4a7c15ULL)) {}
  uint64_t operator()(uint64_t b) const { return Mix64(mixed_ + b); }

 private:
  uint64_t mixed_;
};

// Hash of an ordered pair; Hash64(a, b) != Hash64(b, a) in general.
inline uint64_t Hash64(uint64_t a, uint64_t b) { return SeededHash64(a)(b); }

// 64-bit hash of a string key, seeded with the length: each 8-byte word
// is folded in by a multiply and a rotation (a bijection of the word, so
// keys of one length that differ in one word still differ), and Mix64 at
// the end makes every bit of the result depend on every bit of the key.
// One Mix64 a key, not one per word: the Redis module hashes every key a
// server reads (docs/redis.md, "Its cost").
inline uint64_t HashString(std::string_view s) {
  constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;  // odd
  auto fold = [](uint64_t h, uint64_t word) {
    h = (h ^ word) * kMultiplier;
    return (h << 31) | (h >> 33);
  };
  uint64_t h = s.size() + 0x5bd1e9955bd1e995ULL;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    h = fold(h, word);
  }
  if (i < s.size()) {
    uint64_t word = 0;
    std::memcpy(&word, s.data() + i, s.size() - i);
    h = fold(h, word);
  }
  return Mix64(h);
}

// SplitMix64 (Steele et al.): advances *state and returns the next of a
// seeded stream of well-mixed 64-bit values, for the simulators' draws.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_HASH_H_
