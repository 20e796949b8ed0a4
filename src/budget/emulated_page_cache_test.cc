#include "budget/emulated_page_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

// A file of `bytes` pseudo-random bytes, opened with O_DIRECT where the
// file system allows.
class TestFile {
 public:
  explicit TestFile(uint64_t bytes, uint64_t seed = 1) {
    path_ = (std::filesystem::temp_directory_path() /
             ("symbiosis_emulated_" + std::to_string(getpid()) + "_" + std::to_string(seed)))
                .string();
    std::mt19937_64 rng(seed);
    content_.resize(bytes);
    for (char& c : content_) c = static_cast<char>(rng());
    std::ofstream(path_, std::ios::binary).write(content_.data(), static_cast<long>(bytes));
    fd_ = open(path_.c_str(), O_RDONLY | O_DIRECT);
    if (fd_ < 0) fd_ = open(path_.c_str(), O_RDONLY);
  }
  ~TestFile() {
    close(fd_);
    std::filesystem::remove(path_);
  }
  int fd() const { return fd_; }
  uint64_t size() const { return content_.size(); }
  std::string Slice(uint64_t offset, uint64_t length) const {
    return content_.substr(offset, length);
  }

 private:
  std::string path_;
  std::string content_;
  int fd_ = -1;
};

EmulatedPageCacheOptions Lru(uint64_t capacity) {
  EmulatedPageCacheOptions o;
  o.capacity_bytes = capacity;
  o.max_capacity_bytes = 4 * capacity;
  o.linux_model = false;
  return o;
}

TEST(EmulatedPageCacheTest, ReturnsTheFileBytesAndHitsOnceResident) {
  TestFile file(1 << 20);
  EmulatedPageCache cache(Lru(256 << 10));
  std::string out(10000, '\0');
  EmulatedRead r = cache.Read(5, file.fd(), file.size(), 4000, 10000, out.data());
  EXPECT_EQ(r.error, 0);
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.bytes, 10000u);
  EXPECT_EQ(out, file.Slice(4000, 10000));
  r = cache.Read(5, file.fd(), file.size(), 4096, 8000, out.data());
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(out.substr(0, 8000), file.Slice(4096, 8000));
  EXPECT_EQ(cache.resident_bytes(), 4 * kPageSize);  // pages 0..3 of bytes 4000..13999
  EXPECT_EQ(cache.data_bytes(), 4 * kPageSize);
}

TEST(EmulatedPageCacheTest, ShortReadAtEndOfFile) {
  TestFile file(10000);
  EmulatedPageCache cache(Lru(64 << 10));
  std::string out(5000, '\0');
  const EmulatedRead r = cache.Read(1, file.fd(), file.size(), 8000, 5000, out.data());
  EXPECT_EQ(r.bytes, 2000u);
  EXPECT_EQ(out.substr(0, 2000), file.Slice(8000, 2000));
}

// Random reads against the file's bytes, with resizes and read-ahead (the
// Linux model), so that frames are recycled many times.
TEST(EmulatedPageCacheTest, RandomReadsWithResizesReturnTheRightBytes) {
  TestFile file(4 << 20, 2);
  EmulatedPageCacheOptions o;
  o.capacity_bytes = 512 << 10;
  o.max_capacity_bytes = 2 << 20;
  EmulatedPageCache cache(o);
  std::mt19937_64 rng(3);
  std::string out(20000, '\0');
  uint64_t hits = 0;
  for (int i = 0; i < 5000; ++i) {
    if (i % 500 == 499) cache.SetCapacity((1 + rng() % 4) * (256 << 10));
    const uint64_t length = 1 + rng() % 20000;
    // Mostly a hot megabyte, sometimes anywhere: hits and misses both.
    const uint64_t offset = rng() % 4 == 0 ? rng() % (file.size() - length) : rng() % (1 << 20);
    const EmulatedRead r = cache.Read(9, file.fd(), file.size(), offset, length, out.data());
    ASSERT_EQ(r.error, 0);
    ASSERT_EQ(out.substr(0, length), file.Slice(offset, length)) << "read " << i;
    hits += r.hit;
    ASSERT_LE(cache.resident_bytes(), cache.capacity());
    ASSERT_LE(cache.data_bytes(), cache.capacity() + cache.capacity() / 8 + 64 * kPageSize);
  }
  EXPECT_GT(hits, 500u);
  EXPECT_LT(hits, 4900u);
}

TEST(EmulatedPageCacheTest, ShrinkReturnsMemoryAndDropFileForgets) {
  TestFile file(1 << 20, 4);
  EmulatedPageCache cache(Lru(1 << 20));
  std::string out(1 << 20, '\0');
  cache.Read(3, file.fd(), file.size(), 0, 1 << 20, out.data());
  EXPECT_EQ(cache.data_bytes(), 1u << 20);
  cache.SetCapacity(256 << 10);
  EXPECT_EQ(cache.resident_bytes(), 256u << 10);
  EXPECT_EQ(cache.data_bytes(), 256u << 10);
  cache.DropFile(3);
  EXPECT_EQ(cache.resident_bytes(), 0u);
  EXPECT_EQ(cache.data_bytes(), 0u);
  EXPECT_FALSE(cache.Read(3, file.fd(), file.size(), 0, 100, out.data()).hit);
}

TEST(EmulatedPageCacheTest, MissesWaitForTheInjectedLatencyHitsDoNot) {
  TestFile file(64 << 10, 5);
  EmulatedPageCacheOptions o = Lru(1 << 20);
  o.device_latency_ns = 20'000'000;  // 20 ms
  EmulatedPageCache cache(o);
  std::string out(4096, '\0');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(cache.Read(1, file.fd(), file.size(), 0, 4096, out.data()).hit);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_TRUE(cache.Read(1, file.fd(), file.size(), 0, 4096, out.data()).hit);
}

TEST(EmulatedPageCacheTest, ConcurrentReadersGetTheRightBytes) {
  TestFile file(2 << 20, 6);
  EmulatedPageCacheOptions o;
  o.capacity_bytes = 256 << 10;
  o.max_capacity_bytes = 1 << 20;
  EmulatedPageCache cache(o);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      std::string out(9000, '\0');
      for (int i = 0; i < 2000; ++i) {
        const uint64_t offset = rng() % (file.size() - 9000);
        cache.Read(2, file.fd(), file.size(), offset, 9000, out.data());
        if (out != file.Slice(offset, 9000)) wrong.fetch_add(1);
        if (t == 0 && i % 100 == 0) cache.SetCapacity((1 + i / 100 % 4) * (256 << 10));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(EmulatedPageCacheTest, RejectsAMaximumBelowTheCapacity) {
  EmulatedPageCacheOptions o;
  o.capacity_bytes = 2 << 20;
  o.max_capacity_bytes = 1 << 20;
  EXPECT_THROW(EmulatedPageCache cache(o), InputError);
}

}  // namespace
}  // namespace symbiosis
