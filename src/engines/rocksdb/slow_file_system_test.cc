#include "engines/rocksdb/slow_file_system.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "symbiosis/error.h"
#include "symbiosis/sched_times.h"
#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

TEST(SlowDeviceTest, LatenciesHaveTheGivenMedianAndP99) {
  SlowStorageOptions o;
  o.median_ns = 1'000'000;
  o.p99_ns = 5'000'000;
  SlowDevice device(o);
  std::vector<uint64_t> draws(20'000);
  for (uint64_t& d : draws) d = device.DrawLatency();
  std::sort(draws.begin(), draws.end());
  EXPECT_NEAR(static_cast<double>(draws[10'000]), 1e6, 0.05e6);
  EXPECT_NEAR(static_cast<double>(draws[19'800]), 5e6, 0.75e6);
  o.p99_ns = o.median_ns;  // a constant
  SlowDevice constant(o);
  EXPECT_EQ(constant.DrawLatency(), 1'000'000u);
}

TEST(SlowDeviceTest, PresetsAndBadOptionsAreOneLineErrors) {
  EXPECT_EQ(SlowStoragePreset("hdd").concurrency, 1u);
  EXPECT_GT(SlowStoragePreset("hdd").median_ns, SlowStoragePreset("network").median_ns);
  EXPECT_EQ(SlowStoragePreset("none").median_ns, 0u);
  try {
    SlowStoragePreset("tape");
    ADD_FAILURE() << "an unknown preset was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("use hdd, network or none"), std::string::npos);
  }
  SlowStorageOptions o;
  o.median_ns = 2'000'000;
  o.p99_ns = 1'000'000;
  EXPECT_THROW(SlowDevice{o}, InputError);
  o.median_ns = 0;
  EXPECT_THROW(SlowDevice{o}, InputError);
}

class RocksDbSlowFileSystemTest : public ::testing::Test {
 protected:
  RocksDbSlowFileSystemTest() : dir_("symbiosis_slow_fs") {
    for (const char* name : {"000001.sst", "MANIFEST-000001"}) {
      std::ofstream out(dir_.path(name), std::ios::binary);
      out << std::string(1 << 20, 'x');
    }
  }

  // Reads `n` bytes of `name` through a file system over `device`; returns
  // the time taken.
  uint64_t TimedRead(const std::shared_ptr<SlowDevice>& device, const std::string& name,
                     size_t n) {
    SlowFileSystem fs(::rocksdb::FileSystem::Default(), device);
    std::unique_ptr<::rocksdb::FSRandomAccessFile> file;
    EXPECT_TRUE(fs.NewRandomAccessFile(dir_.path(name), {}, &file, nullptr).ok());
    std::string scratch(n, '\0');
    ::rocksdb::Slice result;
    const uint64_t start = SteadyNowNs();
    EXPECT_TRUE(file->Read(0, n, {}, &result, scratch.data(), nullptr).ok());
    EXPECT_EQ(result.size(), n);
    EXPECT_EQ(result.ToString(), std::string(n, 'x'));  // the bytes are the file's
    return SteadyNowNs() - start;
  }

  testing::TempDir dir_;
};

// Lower bounds only: a read takes at least its emulated time (the machine
// may add to it, never take away).
TEST_F(RocksDbSlowFileSystemTest, ATableReadTakesAtLeastItsLatencyAndOtherFilesNone) {
  SlowStorageOptions o;
  o.median_ns = o.p99_ns = 20'000'000;  // 20 ms
  const auto device = std::make_shared<SlowDevice>(o);
  EXPECT_GE(TimedRead(device, "000001.sst", 4096), 20'000'000u);
  EXPECT_LT(TimedRead(device, "MANIFEST-000001", 4096), 20'000'000u);
}

TEST_F(RocksDbSlowFileSystemTest, OneSlotServesOneReadAtATime) {
  SlowStorageOptions o;
  o.median_ns = o.p99_ns = 10'000'000;
  o.concurrency = 1;
  const auto device = std::make_shared<SlowDevice>(o);
  const uint64_t start = SteadyNowNs();
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) readers.emplace_back([&] { TimedRead(device, "000001.sst", 4096); });
  for (std::thread& t : readers) t.join();
  EXPECT_GE(SteadyNowNs() - start, 40'000'000u);
}

TEST_F(RocksDbSlowFileSystemTest, ReadsShareTheBandwidthCap) {
  SlowStorageOptions o;
  o.median_ns = o.p99_ns = 1000;
  o.bytes_per_second = 10'000'000;  // 1 MiB takes ~105 ms
  const auto device = std::make_shared<SlowDevice>(o);
  EXPECT_GE(TimedRead(device, "000001.sst", 1 << 20), 100'000'000u);
}

}  // namespace
}  // namespace symbiosis::rocksdb
