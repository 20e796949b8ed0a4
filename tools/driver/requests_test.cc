#include "driver/requests.h"

#include <gtest/gtest.h>

namespace symbiosis::bench {
namespace {

TEST(RequestsTest, KeysHaveTheirFixedLength) {
  EXPECT_EQ(Key(0), "user000000000000");
  EXPECT_EQ(Key(123456789012), "user123456789012");
  EXPECT_EQ(Key(7).size(), kKeyBytes);
}

TEST(RequestsTest, AFilledValueChecksAndAChangedOneDoesNot) {
  for (const double alpha : {0.2, 0.5, 1.0}) {
    std::string value(1000, '\0');
    FillValue(42, 1, alpha, &value);
    EXPECT_EQ(CheckValue(value, 1000, alpha), "") << alpha;
    if (alpha < 1) {
      std::string bent = value;
      bent[999] ^= 1;
      EXPECT_NE(CheckValue(bent, 1000, alpha).find("not the ones the load wrote"),
                std::string::npos);
    }
    EXPECT_NE(CheckValue(value.substr(0, 999), 1000, alpha).find("999 bytes"), std::string::npos);
  }
}

TEST(RequestsTest, VersionsOfAKeyDiffer) {
  std::string a(100, '\0'), b(100, '\0');
  FillValue(1, 1, 0.5, &a);
  FillValue(1, 2, 0.5, &b);
  EXPECT_NE(a, b);
  EXPECT_EQ(CheckValue(b, 100, 0.5), "");
}

TEST(RequestsTest, TheFirstErrorIsKeptAndAllAreCounted) {
  RequestErrors errors;
  errors.Add("Get user1: gone");
  errors.Add("Get user2: gone");
  EXPECT_EQ(errors.count(), 2u);
  EXPECT_EQ(errors.first(), "Get user1: gone");
  EXPECT_EQ(FailedRequests(errors, 10), "2 of 10 requests failed; the first: Get user1: gone");
}

}  // namespace
}  // namespace symbiosis::bench
