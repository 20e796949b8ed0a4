// The crash tests' harness, shared by the engine plugins: kill a writer
// process with SIGKILL at random points and check that every write it
// acknowledged survives.
//
// The writer is the test binary itself re-executed as one test (a fresh
// process: forking a process that runs an engine's background threads
// would copy their locks). It reports each acknowledged key number with
// AckWrite, one write(2) on file descriptor 3 per key, so the parent sees
// it even if the writer dies right after.

#ifndef SYMBIOSIS_TESTING_CRASH_HARNESS_H_
#define SYMBIOSIS_TESTING_CRASH_HARNESS_H_

#include <fcntl.h>
#include <poll.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace symbiosis::testing {

// In the writer: key number `i` was written and acknowledged.
inline void AckWrite(uint64_t i) { dprintf(3, "%llu\n", static_cast<unsigned long long>(i)); }

struct CrashRun {
  std::string child_test;  // the writer's gtest name, e.g. "LevelDbCrashChild.Writer"
  // Environment for the writer; first_key_env gets the first key number it
  // should write (one past the last acknowledged).
  std::vector<std::pair<std::string, std::string>> env;
  std::string first_key_env;
  int kills = 25;
  uint64_t seed = 42;
  // For writers slow to start (WiredTiger opens and recovers in about half
  // a second): three kills in four come 0-100 ms after the round's first
  // acknowledgment, so that they land among the writes; the fourth at a
  // random point of the first second (the open, the recovery).
  bool wait_for_first_ack = false;
};

// Runs `run.kills` rounds of start, random sleep (20-200 ms: while the
// writer opens, recovers or writes), SIGKILL; after each calls
// verify(every key acknowledged so far, round). Returns the acknowledged
// keys. Fails the test if the writer ends other than by the kill.
inline std::vector<uint64_t> RunCrashRounds(
    const CrashRun& run,
    const std::function<void(const std::vector<uint64_t>& acked, int round)>& verify) {
  std::mt19937_64 rng(run.seed);
  std::vector<uint64_t> acked;
  uint64_t next = 0;
  // Under ThreadSanitizer the writer ignores the memory accesses that the
  // engines' uninstrumented libraries make through TSan's interceptors
  // (their memtables publish with atomics TSan cannot see); their locks and
  // our instrumented code stay checked (tsan-suppressions.txt). The writer
  // is killed, never exits: halt_on_error makes a report end it early,
  // which fails the test. Built before fork: the child only sets and execs.
  const char* tsan = std::getenv("TSAN_OPTIONS");
  const std::string child_tsan = std::string(tsan != nullptr ? tsan : "") +
                                 " ignore_noninstrumented_modules=1 halt_on_error=1";
  const std::string filter = "--gtest_filter=" + run.child_test;
  for (int round = 0; round < run.kills; ++round) {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    const std::string first = std::to_string(next);
    const pid_t pid = fork();
    EXPECT_GE(pid, 0);
    if (pid == 0) {
      close(out[0]);  // first: the pipe may be fds 3 and 4
      if (out[1] != 3) {
        dup2(out[1], 3);
        close(out[1]);
      }
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, 1);  // gtest's own output
      close(null);
      for (const auto& [name, value] : run.env) setenv(name.c_str(), value.c_str(), 1);
      setenv(run.first_key_env.c_str(), first.c_str(), 1);
      setenv("TSAN_OPTIONS", child_tsan.c_str(), 1);
      execl("/proc/self/exe", "crash_writer", filter.c_str(), "--gtest_brief=1",
            static_cast<char*>(nullptr));
      std::_Exit(5);
    }
    close(out[1]);
    if (run.wait_for_first_ack && round % 4 != 3) {
      pollfd ready{out[0], POLLIN, 0};
      poll(&ready, 1, 30'000);
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 100));
    } else if (run.wait_for_first_ack) {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 1000));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 180));
    }
    kill(pid, SIGKILL);
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    EXPECT_TRUE(WIFSIGNALED(wstatus)) << "the writer exited early with status "
                                      << WEXITSTATUS(wstatus)
                                      << " (66: a ThreadSanitizer report, printed above)";
    FILE* acks = fdopen(out[0], "r");
    unsigned long long key = 0;
    while (std::fscanf(acks, "%llu", &key) == 1) {
      acked.push_back(key);
      next = key + 1;
    }
    std::fclose(acks);
    if (!WIFSIGNALED(wstatus)) break;
    verify(acked, round);
    if (::testing::Test::HasFatalFailure()) break;
  }
  return acked;
}

}  // namespace symbiosis::testing

#endif  // SYMBIOSIS_TESTING_CRASH_HARNESS_H_
