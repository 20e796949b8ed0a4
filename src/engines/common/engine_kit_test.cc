#include "engines/common/engine_kit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace symbiosis::engine_kit {
namespace {

TEST(EngineKitTest, TableBytesCountsOnlyTheGivenExtensions) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("engine_kit_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, size_t bytes) {
    std::ofstream(dir / name) << std::string(bytes, 'x');
  };
  write("000005.ldb", 1000);
  write("000006.sst", 300);
  write("MANIFEST-000001", 50);
  write("LOG", 7);
  EXPECT_EQ(TableBytes(dir.string(), {".ldb", ".sst"}), 1300u);
  EXPECT_EQ(TableBytes(dir.string(), {".sst"}), 300u);
  EXPECT_EQ(TableBytes((dir / "missing").string(), {".sst"}), 0u);
  std::filesystem::remove_all(dir);
}

TEST(EngineKitTest, MiBNamesWholeMebibytes) {
  EXPECT_EQ(MiB(uint64_t{64} << 20), "64 MiB");
  EXPECT_EQ(MiB((uint64_t{3} << 20) + 5), "3 MiB");
}

}  // namespace
}  // namespace symbiosis::engine_kit
