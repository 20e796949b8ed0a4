#include "driver/bench_cgroup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace symbiosis::bench {
namespace {

namespace fs = std::filesystem;

class RunUnderBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("bench_cgroup_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    open_.path = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  OpenRequest open_;
};

TEST_F(RunUnderBudgetTest, ABudgetWithoutACgroupRunsTheBodyHere) {
  open_.memory = 64 << 20;
  open_.reserve = 1000;
  bool told = false;
  const int status = RunUnderBudget(
      false, &open_, [&](const CgroupError&) { told = true; }, [] { return 7; });
  EXPECT_EQ(status, 7);
  EXPECT_FALSE(told);
  EXPECT_FALSE(open_.in_cgroup);
  EXPECT_EQ(open_.reserve, 1000u);  // no cgroup, nothing to round
}

// The kernel rounds a cgroup's limit down to a page and the engine's budget
// is the limit less the reserve: the reserve is rounded up so that M + reserve
// is whole pages and the budget stays M (a 512 MiB static-max once found
// 511.99 MiB). Where no cgroup can be made here, the body runs in this
// process after `no_cgroup` heard why.
TEST_F(RunUnderBudgetTest, ACgroupBudgetKeepsMWhole) {
  const uint64_t asked = (48u << 20) + (512u << 20) / 6;  // not a whole page
  open_.memory = 512u << 20;
  open_.reserve = asked;
  bool told = false;
  const int status = RunUnderBudget(
      true, &open_,
      [&](const CgroupError& e) {
        told = true;
        std::printf("no cgroup here (%s): the body runs in this process\n", e.what());
      },
      [] { return 3; });
  EXPECT_EQ(status, 3);
  EXPECT_NE(open_.in_cgroup, told);
  EXPECT_EQ((open_.memory + open_.reserve) % 4096, 0u);
  EXPECT_GE(open_.reserve, asked);
  EXPECT_LT(open_.reserve, asked + 4096);
}

}  // namespace
}  // namespace symbiosis::bench
