#include "online/controller_link.h"

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

TEST(ControllerLinkTest, SuspendedAccessesReachNoControllerButFilesDo) {
  ControllerConfig config;
  config.memory_bytes = 64ull << 20;
  Controller controller(config, nullptr);
  ControllerLink link;
  EXPECT_EQ(link.accesses(), nullptr);
  EXPECT_FALSE(link.suspended());
  EXPECT_EQ(link.SchedSampleSlowdown(), 0u) << "no controller: nothing to sample for";

  link.Set(&controller);
  EXPECT_EQ(link.accesses(), &controller);
  EXPECT_EQ(link.SchedSampleSlowdown(), 1u) << "a new controller is in its start round";

  link.Suspend(true);
  EXPECT_TRUE(link.suspended());
  EXPECT_EQ(link.accesses(), nullptr);
  EXPECT_EQ(link.files(), &controller);
  EXPECT_EQ(link.SchedSampleSlowdown(), 0u);

  link.Suspend(false);
  EXPECT_FALSE(link.suspended());
  EXPECT_EQ(link.accesses(), &controller);

  link.Set(nullptr);
  link.Suspend(true);
  EXPECT_FALSE(link.suspended()) << "nothing linked, nothing suspended";
}

}  // namespace
}  // namespace symbiosis
