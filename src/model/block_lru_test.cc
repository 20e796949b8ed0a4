#include <gtest/gtest.h>

#include <string>

#include "symbiosis/error.h"
#include "symbiosis/kernel_cache.h"
#include "model/page_cache_model.h"

namespace symbiosis {
namespace {

Block MakeBlock(uint64_t file, uint64_t offset, uint32_t disk_size) {
  return Block{file, offset, disk_size, disk_size * 2};
}

TEST(BlockLruTest, ReadHitsOnlyCachedBlocks) {
  auto cache = NewBlockLru(10000);
  const Block block = MakeBlock(1, 0, 3000);
  EXPECT_FALSE(cache->Read(block));
  EXPECT_TRUE(cache->Read(block));
  EXPECT_EQ(cache->used_bytes(), 3000u);
  // A neighbour in the same page is a different block.
  EXPECT_FALSE(cache->Read(MakeBlock(1, 3000, 1000)));
  EXPECT_FALSE(cache->Read(MakeBlock(2, 0, 3000)));  // same offset, other file
}

TEST(BlockLruTest, EvictsLeastRecentlyReadBytes) {
  auto cache = NewBlockLru(10000);
  const Block a = MakeBlock(1, 0, 4000);
  const Block b = MakeBlock(1, 4000, 4000);
  const Block c = MakeBlock(1, 8000, 4000);
  cache->Read(a);
  cache->Read(b);
  cache->Read(a);  // b is now the oldest
  cache->Read(c);  // 12000 > 10000: b goes
  EXPECT_EQ(cache->used_bytes(), 8000u);
  EXPECT_TRUE(cache->Read(a));
  EXPECT_TRUE(cache->Read(c));
  EXPECT_FALSE(cache->Read(b));
}

TEST(BlockLruTest, InsertDoesNotRefreshACachedBlock) {
  auto cache = NewBlockLru(8000);
  const Block a = MakeBlock(1, 0, 4000);
  const Block b = MakeBlock(1, 4000, 4000);
  cache->Insert(a);
  cache->Insert(b);
  cache->Insert(a);  // already cached: no access, a stays the oldest
  cache->Insert(MakeBlock(1, 8000, 4000));
  EXPECT_FALSE(cache->Read(a));
  EXPECT_LE(cache->used_bytes(), 8000u);
}

TEST(BlockLruTest, BlockLargerThanCacheIsNotAdmitted) {
  auto cache = NewBlockLru(5000);
  const Block small = MakeBlock(1, 0, 1000);
  cache->Read(small);
  EXPECT_FALSE(cache->Read(MakeBlock(1, 1000, 6000)));
  EXPECT_TRUE(cache->Read(small));
  EXPECT_EQ(cache->used_bytes(), 1000u);
}

TEST(BlockLruTest, DropAndDropFile) {
  auto cache = NewBlockLru(100000);
  for (uint64_t i = 0; i < 10; ++i) {
    cache->Read(MakeBlock(1, i * 1000, 1000));
    cache->Read(MakeBlock(2, i * 1000, 1000));
  }
  cache->Drop(MakeBlock(2, 0, 1000));
  EXPECT_EQ(cache->used_bytes(), 19000u);
  cache->DropFile(1);
  EXPECT_EQ(cache->used_bytes(), 9000u);
  EXPECT_FALSE(cache->Read(MakeBlock(1, 5000, 1000)));
  EXPECT_TRUE(cache->Read(MakeBlock(2, 5000, 1000)));
  EXPECT_FALSE(cache->Read(MakeBlock(2, 0, 1000)));
}

TEST(BlockLruTest, SetCapacityShrinksAtOnce) {
  auto cache = NewBlockLru(10000);
  for (uint64_t i = 0; i < 10; ++i) cache->Read(MakeBlock(1, i * 1000, 1000));
  cache->SetCapacity(3500);
  EXPECT_EQ(cache->capacity(), 3500u);
  EXPECT_EQ(cache->used_bytes(), 3000u);
  EXPECT_TRUE(cache->Read(MakeBlock(1, 9000, 1000)));
  EXPECT_FALSE(cache->Read(MakeBlock(1, 6000, 1000)));
}

TEST(KernelCacheTest, NamesRoundTrip) {
  for (KernelModelKind kind : {KernelModelKind::kLinux,
                               KernelModelKind::kPageLru,
                               KernelModelKind::kBlockLru}) {
    EXPECT_EQ(ParseKernelModelKind(KernelModelName(kind)), kind);
  }
  EXPECT_EQ(KernelModelName(KernelModelKind::kBlockLru), "block-lru");
}

TEST(KernelCacheTest, UnknownNameListsValidOnes) {
  try {
    ParseKernelModelKind("clock");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'clock'"), std::string::npos);
    EXPECT_NE(message.find("linux, lru, block-lru"), std::string::npos);
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(KernelCacheTest, FactoryBuildsEachModel) {
  const uint64_t capacity = 64 * kPageSize;
  auto linux_model = NewKernelCache(KernelModelKind::kLinux, PageCacheOptions{capacity});
  auto* page_model = dynamic_cast<PageCacheModel*>(linux_model.get());
  ASSERT_NE(page_model, nullptr);
  EXPECT_TRUE(page_model->options().two_queue);
  EXPECT_TRUE(page_model->options().readahead);

  auto lru_model = NewKernelCache(KernelModelKind::kPageLru, PageCacheOptions{capacity});
  page_model = dynamic_cast<PageCacheModel*>(lru_model.get());
  ASSERT_NE(page_model, nullptr);
  EXPECT_FALSE(page_model->options().two_queue);
  EXPECT_FALSE(page_model->options().readahead);

  auto block_model = NewKernelCache(KernelModelKind::kBlockLru, PageCacheOptions{capacity});
  EXPECT_EQ(dynamic_cast<PageCacheModel*>(block_model.get()), nullptr);
  for (auto* model : {linux_model.get(), lru_model.get(), block_model.get()}) {
    EXPECT_EQ(model->capacity(), capacity);
    EXPECT_FALSE(model->Read(MakeBlock(1, 0, 100)));
    EXPECT_TRUE(model->Read(MakeBlock(1, 0, 100)));
  }
}

}  // namespace
}  // namespace symbiosis
