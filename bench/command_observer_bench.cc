// command_observer_bench: what the Redis module's filter costs the server's
// thread per command, without a server: CommandObserver::Observe on GETs
// (and one SET in ten) of redis-benchmark-style keys ("key:%012d", a
// scrambled zipfian over --keys), with the module's defaults (the stacks
// on their own thread, so the caller pays the hash, the register, the
// sample's compare and for a sampled read a ring slot).
//
//   command_observer_bench [--commands N] [--keys K] [--rate R] [--repeats N]
//
// Each repeat times a fresh observer over all the commands (generated
// before timing) on the calling thread's CPU clock and prints ns per
// command; the median comes last, less the median of the same loop with
// nothing observed (reading the keys costs cache misses of its own).
// Commands come far faster than from a server, so the ring fills and
// sampled reads are dropped (counted): a server's thread pays that slot too.

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engines/redis/command_observer.h"
#include "symbiosis/workload.h"

namespace symbiosis {
namespace {

volatile uint64_t g_sink;

double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "command_observer_bench: %s\nusage: command_observer_bench [--commands N] "
               "[--keys K] [--rate R] [--repeats N]\n",
               why.c_str());
  std::exit(2);
}

int Main(int argc, char** argv) {
  uint64_t commands = 10'000'000;
  uint64_t keys = 100'000;
  double rate = 0.01;
  int repeats = 5;
  for (int i = 1; i < argc; i++) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) Usage(flag + " needs a value");
    const char* value = argv[++i];
    char* end = nullptr;
    if (flag == "--commands") {
      commands = std::strtoull(value, &end, 10);
    } else if (flag == "--keys") {
      keys = std::strtoull(value, &end, 10);
    } else if (flag == "--rate") {
      rate = std::strtod(value, &end);
    } else if (flag == "--repeats") {
      repeats = static_cast<int>(std::strtol(value, &end, 10));
    } else {
      Usage("unknown flag " + flag);
    }
    if (end == value || *end != '\0') Usage(flag + " takes a number; got " + value);
  }
  if (commands == 0 || keys == 0 || repeats <= 0 || !(rate > 0 && rate <= 1)) {
    Usage("--commands, --keys and --repeats must be positive, --rate in (0, 1]");
  }

  // Each command's key, laid out in the order of the commands (a server's
  // filter reads a key just parsed from its input, in the CPU's cache; a
  // table of names read at random would time its cache misses instead).
  constexpr size_t kKeyBytes = 16;  // "key:" and 12 digits
  const std::unique_ptr<Workload> workload = MakeWorkload("zipfian", keys, 100, /*seed=*/7);
  std::vector<char> stream(commands * kKeyBytes);
  for (uint64_t i = 0; i < commands; i++) {
    char buf[kKeyBytes + 1];
    std::snprintf(buf, sizeof(buf), "key:%012llu",
                  static_cast<unsigned long long>(workload->Next().first_key));
    std::memcpy(&stream[i * kKeyBytes], buf, kKeyBytes);
  }
  auto key_of = [&stream](uint64_t i) {
    return std::string_view(&stream[i * kKeyBytes], kKeyBytes);
  };
  const std::string value(100, 'v');
  const std::string_view get = "GET";
  const std::string_view set = "SET";

  // The loop alone (the commands' keys read, nothing observed): what the
  // observer's time is measured above.
  auto median = [](std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    return xs[xs.size() / 2];
  };
  std::vector<double> loop_ns;
  for (int r = 0; r < repeats; r++) {
    uint64_t sink = 0;
    const double start = ThreadSeconds();
    for (uint64_t i = 0; i < commands; i++) {
      const std::string_view key = key_of(i);
      sink += static_cast<uint8_t>(key[key.size() - 1]) + (i % 10 == 9 ? value.size() : 0);
    }
    loop_ns.push_back(1e9 * (ThreadSeconds() - start) / static_cast<double>(commands));
    g_sink = sink;  // keeps the loop
  }
  const double loop = median(loop_ns);
  std::printf("the loop alone: %.1f ns a command (median)\n", loop);

  std::vector<double> ns;
  for (int r = 0; r < repeats; r++) {
    CommandObserverOptions options;
    options.rate = rate;
    options.background = true;
    CommandObserver observer(options);
    const double start = ThreadSeconds();
    for (uint64_t i = 0; i < commands; i++) {
      const std::string_view key = key_of(i);
      const bool write = i % 10 == 9;
      observer.Observe(write ? 3 : 2, [&](size_t a) -> std::string_view {
        return a == 0 ? (write ? set : get) : a == 1 ? key : std::string_view(value);
      });
    }
    const double seconds = ThreadSeconds() - start;
    ns.push_back(1e9 * seconds / static_cast<double>(commands));
    const ObserverStats stats = observer.Stats();
    std::printf("repeat %d: %.1f ns a command (%llu sampled reads, %llu dropped)\n", r + 1,
                ns.back(), static_cast<unsigned long long>(stats.sampled_reads),
                static_cast<unsigned long long>(stats.dropped_reads));
  }
  const double observed = median(ns);
  std::printf("median: %.1f ns a command, the observer's %.1f ns\n", observed, observed - loop);
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) { return symbiosis::Main(argc, argv); }
