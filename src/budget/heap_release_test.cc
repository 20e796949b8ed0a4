#include "budget/heap_release.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

uint64_t ResidentBytes() {
  long pages = 0, resident = 0;
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  const int n = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return n == 2 ? static_cast<uint64_t>(resident) * sysconf(_SC_PAGESIZE) : 0;
}

// 32 MiB of block-sized allocations, touched and freed, below one that
// stays (so that glibc cannot give them back by trimming the heap's top on
// free): what a block cache leaves behind when it shrinks.
TEST(ReleaseFreeHeapTest, GivesFreedBlocksBack) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc's and jemalloc's";
#else
  constexpr size_t kBlock = 4096, kBlocks = 8192;
  std::vector<char*> blocks(kBlocks);
  for (char*& b : blocks) {
    b = static_cast<char*>(std::malloc(kBlock));
    ASSERT_NE(b, nullptr);
    std::memset(b, 1, kBlock);
  }
  char* const holdout = static_cast<char*>(std::malloc(kBlock));
  std::memset(holdout, 1, kBlock);
  for (char* b : blocks) std::free(b);
  const uint64_t before = ResidentBytes();
  const HeapRelease released = ReleaseFreeHeap();
  const uint64_t after = ResidentBytes();
  std::free(holdout);
  ASSERT_GT(before, 0u) << "/proc/self/statm unreadable";
  EXPECT_TRUE(released.glibc);
  const bool has_jemalloc = dlsym(RTLD_DEFAULT, "mallctl") != nullptr;
  EXPECT_EQ(released.jemalloc, has_jemalloc);
  // ctest runs this test a second time with jemalloc preloaded.
  if (const char* want = std::getenv("SYMBIOSIS_EXPECT_JEMALLOC"); want && *want == '1') {
    EXPECT_TRUE(has_jemalloc) << "jemalloc was to be preloaded";
  }
  EXPECT_GE(before - std::min(before, after), uint64_t{16} << 20)
      << "resident " << (before >> 20) << " MiB before, " << (after >> 20) << " after";
#endif
}

}  // namespace
}  // namespace symbiosis
