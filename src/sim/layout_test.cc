#include "symbiosis/layout.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "symbiosis/error.h"

namespace symbiosis {
namespace {

LayoutOptions Small() {
  LayoutOptions o;
  o.data_bytes = 64 << 20;  // 16384 blocks
  return o;
}

std::string ErrorOf(const LayoutOptions& o) {
  try {
    DataLayout layout(o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(DataLayout, SizesFollowAlpha) {
  for (double alpha : {0.25, 0.5, 1.0}) {
    LayoutOptions o = Small();
    o.alpha = alpha;
    DataLayout layout(o);
    EXPECT_EQ(layout.num_blocks(), 16384u);
    EXPECT_EQ(layout.memory_bytes(), o.data_bytes);
    EXPECT_EQ(layout.entries_per_block(), 32u);
    EXPECT_EQ(layout.num_keys(), 16384u * 32);
    double expected = alpha * o.data_bytes + 5.0 * layout.num_blocks();
    EXPECT_NEAR(layout.stored_bytes() / expected, 1.0, 0.01) << alpha;
    EXPECT_EQ(layout.disk_bytes(), layout.stored_bytes()) << "no padding";
    EXPECT_NEAR(layout.mean_disk_block_bytes(), alpha * 4096 + 5, 0.01 * 4096);
    for (uint64_t i = 0; i < layout.num_blocks(); i++) {
      const Block& b = layout.block(i);
      ASSERT_EQ(b.mem_size, 4096u);
      ASSERT_GE(b.disk_size, 6u);
      ASSERT_LE(b.disk_size, 4096u + 5);
    }
  }
}

TEST(DataLayout, JitterMakesSizesVary) {
  DataLayout layout(Small());
  uint32_t smallest = UINT32_MAX, largest = 0;
  for (uint64_t i = 0; i < layout.num_blocks(); i++) {
    smallest = std::min(smallest, layout.block(i).disk_size);
    largest = std::max(largest, layout.block(i).disk_size);
  }
  EXPECT_LT(smallest, 2048u * 0.92);
  EXPECT_GT(largest, 2048u * 1.08);
  EXPECT_LE(largest, 2048u * 1.1 + 6);
}

TEST(DataLayout, PackedBlocksAreContiguousAndMisaligned) {
  DataLayout layout(Small());
  uint64_t misaligned = 0, files = 1;
  for (uint64_t i = 1; i < layout.num_blocks(); i++) {
    const Block& prev = layout.block(i - 1);
    const Block& b = layout.block(i);
    if (b.file_id == prev.file_id) {
      ASSERT_EQ(b.offset, prev.offset + prev.disk_size);
    } else {
      ASSERT_EQ(b.file_id, prev.file_id + 1);
      ASSERT_EQ(b.offset, 0u);
      files++;
    }
    ASSERT_LE(b.offset + b.disk_size, layout.options().file_bytes);
    if (b.offset % kPageSize != 0) misaligned++;
  }
  EXPECT_EQ(layout.block(0).file_id, 1u);
  EXPECT_GT(misaligned, layout.num_blocks() * 9 / 10);
  // ~32 MiB on disk in 2 MiB files.
  EXPECT_GE(files, 16u);
  EXPECT_LE(files, 17u);
}

TEST(DataLayout, AlignedBlocksStartOnPages) {
  LayoutOptions o = Small();
  o.aligned = true;
  DataLayout layout(o);
  for (uint64_t i = 0; i < layout.num_blocks(); i++) {
    ASSERT_EQ(layout.block(i).offset % kPageSize, 0u) << i;
    ASSERT_EQ(layout.block(i).page_count(), 1u) << i;
  }
  EXPECT_EQ(layout.disk_bytes(), layout.num_blocks() * kPageSize);
  EXPECT_LT(layout.stored_bytes(), layout.disk_bytes());
}

TEST(DataLayout, BlockOfKey) {
  DataLayout layout(Small());
  EXPECT_EQ(layout.BlockOfKey(0), 0u);
  EXPECT_EQ(layout.BlockOfKey(31), 0u);
  EXPECT_EQ(layout.BlockOfKey(32), 1u);
  EXPECT_EQ(layout.BlockOfKey(layout.num_keys() - 1), layout.num_blocks() - 1);
}

TEST(DataLayout, PartialBlockIsDropped) {
  LayoutOptions o = Small();
  o.data_bytes = 3 * 4096 + 100;
  o.entry_bytes = 1000;
  DataLayout layout(o);
  EXPECT_EQ(layout.num_blocks(), 3u);
  EXPECT_EQ(layout.memory_bytes(), 3u * 4096);
  EXPECT_EQ(layout.entries_per_block(), 4u);
  EXPECT_EQ(layout.num_keys(), 12u);
}

TEST(DataLayout, Deterministic) {
  LayoutOptions o = Small();
  DataLayout a(o), b(o);
  o.seed = 2;
  DataLayout c(o);
  uint64_t differ = 0;
  for (uint64_t i = 0; i < a.num_blocks(); i++) {
    ASSERT_EQ(a.block(i), b.block(i));
    if (!(a.block(i) == c.block(i))) differ++;
  }
  EXPECT_GT(differ, a.num_blocks() / 2);
}

TEST(DataLayout, BadOptionsThrow) {
  struct Case {
    const char* name;
    void (*mutate)(LayoutOptions*);
    const char* message;
  };
  const Case cases[] = {
      {"zero data", [](LayoutOptions* o) { o->data_bytes = 0; }, "data size 0"},
      {"data below a block", [](LayoutOptions* o) { o->data_bytes = 4095; },
       "smaller than one block"},
      {"alpha 0", [](LayoutOptions* o) { o->alpha = 0; }, "alpha"},
      {"alpha negative", [](LayoutOptions* o) { o->alpha = -0.5; }, "alpha"},
      {"alpha above 1", [](LayoutOptions* o) { o->alpha = 1.01; }, "alpha"},
      {"alpha NaN",
       [](LayoutOptions* o) { o->alpha = std::numeric_limits<double>::quiet_NaN(); },
       "alpha"},
      {"jitter 1", [](LayoutOptions* o) { o->size_jitter = 1; }, "size_jitter"},
      {"block 0", [](LayoutOptions* o) { o->block_bytes = 0; }, "block size"},
      {"entry 0", [](LayoutOptions* o) { o->entry_bytes = 0; }, "entry size"},
      {"entry above block", [](LayoutOptions* o) { o->entry_bytes = 4097; },
       "entry size"},
      {"file below a block", [](LayoutOptions* o) { o->file_bytes = 2000; },
       "file size"},
      {"aligned file below a page",
       [](LayoutOptions* o) {
         o->aligned = true;
         o->file_bytes = 4000;
       },
       "file size"},
      {"too many blocks",
       [](LayoutOptions* o) { o->data_bytes = uint64_t{1} << 50; }, "blocks"},
      {"block above 64 MiB",
       [](LayoutOptions* o) {
         o->block_bytes = kMaxBlockBytes + 1;
         o->data_bytes = uint64_t{1} << 30;
         o->file_bytes = uint64_t{1} << 30;
       },
       "larger than 64 MiB"},
  };
  for (const Case& c : cases) {
    LayoutOptions o = Small();
    c.mutate(&o);
    std::string error = ErrorOf(o);
    EXPECT_NE(error.find(c.message), std::string::npos)
        << c.name << ": '" << error << "'";
  }
}

}  // namespace
}  // namespace symbiosis
