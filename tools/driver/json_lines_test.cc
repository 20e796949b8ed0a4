#include "driver/json_lines.h"

#include <gtest/gtest.h>

#include <cmath>

namespace symbiosis::bench {
namespace {

TEST(JsonLinesTest, NumbersAreRoundedAndNonFiniteOnesNull) {
  EXPECT_EQ(Dump(Json(Rounded(12.34567, 2))), "12.35");
  EXPECT_EQ(Dump(Json(Rounded(0.5, 4))), "0.5");
  EXPECT_EQ(Dump(Json(Rounded(NAN, 2))), "null");
  EXPECT_EQ(Dump(Json(Rounded(INFINITY, 2))), "null");
}

TEST(JsonLinesTest, AnyMessageStaysOneValidLine) {
  Json j;
  j["first_error"] = std::string("Get user1: \"bad\"\nline\x01 \xff\xfe end");
  const std::string line = Dump(j);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("\\\"bad\\\""), std::string::npos) << line;
  EXPECT_NE(line.find("\\u0001"), std::string::npos) << line;
  EXPECT_NE(line.find("\xef\xbf\xbd"), std::string::npos) << line;  // U+FFFD for the stray bytes
  EXPECT_EQ(Json::parse(line)["first_error"].get<std::string>().substr(0, 11), "Get user1: ");
}

TEST(JsonLinesTest, KeysKeepTheirOrder) {
  Json j;
  j["type"] = "summary";
  j["b"] = 1;
  j["a"] = 2;
  EXPECT_EQ(Dump(j), "{\"type\":\"summary\",\"b\":1,\"a\":2}");
}

}  // namespace
}  // namespace symbiosis::bench
