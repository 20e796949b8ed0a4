#include "model/table_file_name.h"

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

TEST(TableFileNumberTest, ParsesTableNamesWithTheGivenSuffixesOnly) {
  EXPECT_EQ(TableFileNumber("/db/000123.ldb", {".ldb", ".sst"}), 123u);
  EXPECT_EQ(TableFileNumber("000007.sst", {".ldb", ".sst"}), 7u);
  EXPECT_EQ(TableFileNumber("/db/000123.ldb", {".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db/000123.log", {".ldb", ".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db/MANIFEST-000002", {".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db/.sst", {".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db/12a.sst", {".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db.d/000009.sst", {".sst"}), 9u);
  EXPECT_EQ(TableFileNumber("/db/99999999999999999999999.sst", {".sst"}), std::nullopt);
  EXPECT_EQ(TableFileNumber("/db/18446744073709551615.sst", {".sst"}), UINT64_MAX);
}

}  // namespace
}  // namespace symbiosis
