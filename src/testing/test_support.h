// Helpers shared by the unit tests: a textbook LRU to check the fast
// models against, and the location of the shared test traces.

#ifndef SYMBIOSIS_TESTING_TEST_SUPPORT_H_
#define SYMBIOSIS_TESTING_TEST_SUPPORT_H_

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <list>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace symbiosis::testing {

// A fresh directory under the system's temporary directory, removed with
// everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "symbiosis_test") {
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(next_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int next_ = 0;
  std::filesystem::path path_;
};

// A byte LRU cache as a textbook list: insert at the front, evict from the
// back while over capacity (an object larger than the cache evicts itself).
class ListLru {
 public:
  explicit ListLru(uint64_t capacity) : capacity_(capacity) {}

  // Returns whether `key` was resident; makes it the most recent.
  bool Access(uint64_t key, uint64_t size) {
    auto it = where_.find(key);
    const bool hit = it != where_.end();
    if (hit) {
      used_ -= it->second->second;
      order_.erase(it->second);
    }
    order_.emplace_front(key, size);
    where_[key] = order_.begin();
    used_ += size;
    while (used_ > capacity_) {
      used_ -= order_.back().second;
      where_.erase(order_.back().first);
      order_.pop_back();
    }
    return hit;
  }

 private:
  uint64_t capacity_;
  uint64_t used_ = 0;
  std::list<std::pair<uint64_t, uint64_t>> order_;  // (key, size), MRU first
  std::unordered_map<uint64_t, decltype(order_)::iterator> where_;
};

struct SizedAccess {
  uint64_t key;
  uint64_t size;
};

// `length` accesses to `keys` keys drawn with a skew (a few hot keys), so
// that stack distances of every magnitude occur; each key has a fixed size
// in [1, 20000]. Different seeds give different keys.
inline std::vector<SizedAccess> SkewedTrace(uint64_t seed, size_t length, uint64_t keys) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> size_of(keys);
  for (uint64_t& size : size_of) size = 1 + rng() % 20000;
  std::vector<SizedAccess> trace;
  for (size_t i = 0; i < length; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const uint64_t key = static_cast<uint64_t>(u * u * keys);
    trace.push_back({key * 0x9e3779b97f4a7c15ULL + seed, size_of[key]});
  }
  return trace;
}

// The folder shared/traces beside the repository (the repository is a
// clone whose sibling is shared/), searched upwards from this source file
// and from the working directory. Empty if absent: tests then skip with
// a printed reason.
inline std::filesystem::path SharedTraceDir() {
  namespace fs = std::filesystem;
  std::error_code error;
  for (fs::path dir : {fs::absolute(fs::path(__FILE__), error).parent_path(),
                       fs::current_path(error)}) {
    for (; !dir.empty(); dir = dir.parent_path()) {
      const fs::path candidate = dir / "shared" / "traces";
      if (fs::exists(candidate / "cloudPhysicsIO.oracleGeneral.bin", error)) {
        return candidate;
      }
      if (dir == dir.root_path()) break;
    }
  }
  return {};
}

// The CloudPhysics trace in oracleGeneral form: shared/traces' copy where
// it exists, else the repository's (tests/data, so that the checks run
// in any clone).
inline std::filesystem::path CloudPhysicsTrace() {
  namespace fs = std::filesystem;
  const fs::path shared = SharedTraceDir();
  if (!shared.empty()) return shared / "cloudPhysicsIO.oracleGeneral.bin";
  std::error_code error;
  const fs::path repo = fs::absolute(fs::path(__FILE__), error).parent_path().parent_path().parent_path();
  return repo / "tests" / "data" / "cloudPhysicsIO.oracleGeneral.bin";
}

}  // namespace symbiosis::testing

#endif  // SYMBIOSIS_TESTING_TEST_SUPPORT_H_
