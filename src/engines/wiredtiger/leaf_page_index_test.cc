#include "engines/wiredtiger/leaf_page_index.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>

namespace symbiosis::wiredtiger {
namespace {

LeafPage Page(uint64_t offset) { return LeafPage{offset, 4096, 32768}; }

TEST(LeafPageIndexTest, KeysInsideALearnedIntervalAreCertain) {
  LeafPageIndex index;
  EXPECT_FALSE(index.Find("k").has_value());
  index.Learn("b", Page(4096));
  index.Learn("f", Page(4096));
  index.Learn("m", Page(8192));
  EXPECT_EQ(index.pages(), 2u);
  auto match = index.Find("d");
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->page, Page(4096));
  EXPECT_TRUE(match->certain);
  match = index.Find("h");  // between the pages: a guess, the lower one
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->page, Page(4096));
  EXPECT_FALSE(match->certain);
  match = index.Find("a");  // below everything
  EXPECT_EQ(match->page, Page(4096));
  EXPECT_FALSE(match->certain);
  match = index.Find("z");
  EXPECT_EQ(match->page, Page(8192));
  EXPECT_FALSE(match->certain);
  EXPECT_TRUE(index.Find("m")->certain);
}

TEST(LeafPageIndexTest, ARewrittenRangeReplacesTheOldPage) {
  LeafPageIndex index;
  index.Learn("b", Page(4096));
  index.Learn("f", Page(4096));
  index.Learn("d", Page(12288));  // reconciled to a new address (or split)
  EXPECT_EQ(index.Find("d")->page, Page(12288));
  EXPECT_TRUE(index.Find("d")->certain);
  EXPECT_FALSE(index.Find("e")->certain);  // the old interval is gone
  EXPECT_EQ(index.pages(), 1u);
  // The old address reused for a new range elsewhere: its stale interval
  // does not swallow the keys in between.
  index.Learn("p", Page(8192));
  index.Learn("x", Page(4096));
  index.Learn("y", Page(4096));
  EXPECT_EQ(index.Find("q")->page, Page(8192));
  EXPECT_EQ(index.Find("x")->page, Page(4096));
  // Same offset, another size: another image, not the old page widened.
  index.Learn("z", LeafPage{4096, 8192, 40000});
  EXPECT_FALSE(index.Find("y")->certain);
  EXPECT_EQ(index.pages(), 3u);
}

TEST(LeafPageIndexTest, NeighbouringKeysWidenOnlyAcrossAnEmptyGap) {
  LeafPageIndex index;
  index.Learn("c", Page(4096));
  index.Learn("g", Page(8192));
  index.Learn("a", Page(4096));  // widens c's interval down to a
  EXPECT_TRUE(index.Find("b")->certain);
  index.Learn("k", Page(4096));  // g lies between: the old interval is stale
  EXPECT_FALSE(index.Find("b")->certain);
  EXPECT_EQ(index.Find("g")->page, Page(8192));
  EXPECT_EQ(index.Find("k")->page, Page(4096));
  EXPECT_EQ(index.pages(), 2u);
}

// Against a B-tree's true partition: keys drawn at random from pages of
// 50 keys each; once every page was learned a few times, most lookups are
// certain and every certain answer is right.
TEST(LeafPageIndexTest, CertainAnswersAreAlwaysRight) {
  constexpr int kKeys = 100'000, kPerPage = 50;
  auto key = [](int i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "user%012d", i);
    return std::string(buf);
  };
  LeafPageIndex index;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pick(0, kKeys - 1);
  for (int n = 0; n < 20 * kKeys / kPerPage; n++) {
    const int i = pick(rng);
    index.Learn(key(i), Page(uint64_t(i / kPerPage) * 4096));
  }
  int certain = 0, right_guesses = 0, guesses = 0;
  for (int n = 0; n < 20'000; n++) {
    const int i = pick(rng);
    const auto match = index.Find(key(i));
    ASSERT_TRUE(match.has_value());
    const bool right = match->page == Page(uint64_t(i / kPerPage) * 4096);
    if (match->certain) {
      ASSERT_TRUE(right) << key(i);
      ++certain;
    } else {
      ++guesses;
      right_guesses += right;
    }
  }
  EXPECT_GT(certain, 20'000 * 8 / 10);  // 20 learned keys per page of 50
  EXPECT_GT(right_guesses, guesses / 3);
  EXPECT_EQ(index.pages(), size_t(kKeys / kPerPage));
}

}  // namespace
}  // namespace symbiosis::wiredtiger
