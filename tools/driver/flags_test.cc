#include "driver/flags.h"

#include <gtest/gtest.h>

#include <vector>

namespace symbiosis::bench {
namespace {

CommandSpec Spec() {
  return {"run", "--db DIR", "Runs.\n",
          {{"db", "DIR", "the DB"}, {"threads", "N", "readers"}, {"progress", "", "a status line"}}};
}

Flags Parse(std::vector<std::string> args) {
  args.insert(args.begin(), {"leveldb_bench", "run"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), Spec());
}

TEST(FlagsTest, ValuesSwitchesAndTheEqualsForm) {
  SetProgramName("leveldb_bench");
  const Flags f = Parse({"--db", "/tmp/x", "--threads=8", "--progress"});
  EXPECT_EQ(f.Get("db", ""), "/tmp/x");
  EXPECT_EQ(f.Get("threads", ""), "8");
  EXPECT_TRUE(f.Has("progress"));
  EXPECT_FALSE(f.Has("memory"));
  EXPECT_EQ(f.Get("memory", "fallback"), "fallback");
  EXPECT_EQ(ParseThreads(f), 8);
}

TEST(FlagsTest, TheHelpListsEveryFlag) {
  SetProgramName("leveldb_bench");
  const std::string help = CommandHelp(Spec());
  EXPECT_EQ(help.rfind("usage: leveldb_bench run --db DIR [flags]", 0), 0u) << help;
  for (const char* flag : {"--db DIR", "--threads N", "--progress"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag;
  }
}

TEST(FlagsDeathTest, BadInputIsOneLineAndExitsTwo) {
  SetProgramName("leveldb_bench");
  EXPECT_EXIT(Parse({"--bogus", "1"}), ::testing::ExitedWithCode(2),
              "leveldb_bench: error: unknown flag --bogus; see leveldb_bench run --help\n");
  EXPECT_EXIT(Parse({"stray"}), ::testing::ExitedWithCode(2), "unexpected argument 'stray'");
  EXPECT_EXIT(Parse({"--db"}), ::testing::ExitedWithCode(2), "--db needs a value");
  EXPECT_EXIT(ParseThreads(Parse({"--threads", "0"})), ::testing::ExitedWithCode(2),
              "--threads must be 1..256");
  EXPECT_EXIT(ParseThreads(Parse({"--threads", "4294967297"})), ::testing::ExitedWithCode(2),
              "--threads must be 1..256");
  EXPECT_EXIT(ParseFraction("1.5", "--alpha", false, true), ::testing::ExitedWithCode(2),
              "--alpha must be a number in .0, 1., not '1.5'");
  EXPECT_EXIT(ParseOverhead("x"), ::testing::ExitedWithCode(2), "e.g. 0.25, not 'x'");
}

}  // namespace
}  // namespace symbiosis::bench
