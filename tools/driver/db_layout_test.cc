#include "driver/db_layout.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "symbiosis/error.h"

namespace symbiosis::bench {
namespace {

namespace fs = std::filesystem;

class DbLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("db_layout_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& text) { std::ofstream(dir_ / kLayoutFile) << text; }
  std::string ErrorOf() {
    try {
      ReadLayout(dir_.string(), "leveldb_bench");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(DbLayoutTest, WhatLoadWritesReadsBack) {
  DbLayout l;
  l.keys = 1234567;
  l.value_bytes = 1000;
  l.alpha_target = 0.35;
  l.alpha_measured = 0.3712345678901;
  l.data_bytes = l.keys * 1016;
  l.table_bytes = 123456789012;
  Write(Dump(ToJson(l)) + "\n");
  const DbLayout r = ReadLayout(dir_.string(), "leveldb_bench");
  EXPECT_EQ(r.keys, l.keys);
  EXPECT_EQ(r.value_bytes, l.value_bytes);
  EXPECT_EQ(r.alpha_target, l.alpha_target);  // exact: values are recomputed from it
  EXPECT_EQ(r.alpha_measured, l.alpha_measured);
  EXPECT_EQ(r.data_bytes, l.data_bytes);
  EXPECT_EQ(r.table_bytes, l.table_bytes);
}

TEST_F(DbLayoutTest, TheOlderDriversFileReads) {
  // As the hand-written writer spelled it, spaces after the colons.
  Write("{\"keys\": 10, \"value_bytes\": 1000, \"alpha_target\": 0.5, \"alpha_measured\": "
        "0.52, \"data_bytes\": 10160, \"table_bytes\": 5300}\n");
  EXPECT_EQ(ReadLayout(dir_.string(), "leveldb_bench").keys, 10u);
}

TEST_F(DbLayoutTest, ABrokenFileSaysWhatIsWrongAndWhatToDo) {
  Write("{\"keys\": 10, \"value_bytes\": 1000");
  EXPECT_NE(ErrorOf().find("is not a JSON object"), std::string::npos) << ErrorOf();
  EXPECT_NE(ErrorOf().find("load it again"), std::string::npos);
  Write("{\"keys\": 10, \"value_bytes\": 1000, \"alpha_target\": 0.5, \"data_bytes\": 10160, "
        "\"table_bytes\": 5300}");
  EXPECT_NE(ErrorOf().find("lacks the number alpha_measured"), std::string::npos) << ErrorOf();
  Write("{\"keys\": -3, \"value_bytes\": 1000, \"alpha_target\": 0.5, \"alpha_measured\": 0.5, "
        "\"data_bytes\": 10160, \"table_bytes\": 5300}");
  EXPECT_NE(ErrorOf().find("lacks the count keys"), std::string::npos) << ErrorOf();
  Write("{\"keys\": 10, \"value_bytes\": 1000, \"alpha_target\": 7, \"alpha_measured\": 0.5, "
        "\"data_bytes\": 10160, \"table_bytes\": 5300}");
  EXPECT_NE(ErrorOf().find("alpha_target outside"), std::string::npos) << ErrorOf();
}

TEST_F(DbLayoutTest, NoDbOrNoFileSaysHowToMakeOne) {
  EXPECT_NE(ErrorOf().find("is not a benchmark DB"), std::string::npos) << ErrorOf();
  EXPECT_NE(ErrorOf().find("leveldb_bench load --db"), std::string::npos);
  fs::remove_all(dir_);
  EXPECT_NE(ErrorOf().find("no DB directory"), std::string::npos) << ErrorOf();
}

}  // namespace
}  // namespace symbiosis::bench
