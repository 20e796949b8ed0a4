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

// Hash of an ordered pair; Hash64(a, b) != Hash64(b, a) in general.
inline uint64_t Hash64(uint64_t a, uint64_t b) {
  return Mix64(Mix64(a ^ 0x9e3779b97f4a7c15ULL) + b);
}

// 64-bit hash of a string key: Hash64 chained over 8-byte words, seeded
// with the length, so keys that differ in any byte or in length differ.
inline uint64_t HashString(std::string_view s) {
  uint64_t h = Mix64(s.size() + 0x5bd1e9955bd1e995ULL);
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    h = Hash64(h, word);
  }
  if (i < s.size()) {
    uint64_t word = 0;
    std::memcpy(&word, s.data() + i, s.size() - i);
    h = Hash64(h, word);
  }
  return h;
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
