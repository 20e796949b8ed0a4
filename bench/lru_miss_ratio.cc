// lru_miss_ratio: the exact miss ratio of one LRU cache over a
// libCacheSim oracleGeneral trace, and how fast it was computed.
//
//   lru_miss_ratio --trace FILE.oracleGeneral --size N [--bytes]
//
// N counts objects, or bytes with --bytes. Prints one "name: value" line
// each: requests, miss_ratio, byte_miss_ratio, read_seconds,
// simulate_seconds, requests_per_second (reading included).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "symbiosis/error.h"
#include "mrc/lru_sim.h"
#include "symbiosis/trace.h"

namespace symbiosis {
namespace {

constexpr char kUsage[] =
    "usage: lru_miss_ratio --trace FILE.oracleGeneral --size N [--bytes]";

struct Flags {
  std::string trace;
  uint64_t size = 0;
  bool bytes = false;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  bool have_size = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--bytes") {
      flags.bytes = true;
    } else if ((arg == "--trace" || arg == "--size") && i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--trace") {
        flags.trace = value;
        continue;
      }
      size_t used = 0;
      try {
        flags.size = std::stoull(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || value[0] == '-') {
        throw InputError("--size '" + value +
                         "' is not a non-negative integer; " + kUsage);
      }
      have_size = true;
    } else {
      throw InputError("unexpected argument '" + arg + "'; " + kUsage);
    }
  }
  if (flags.trace.empty() || !have_size) {
    throw InputError(std::string("--trace and --size are required; ") + kUsage);
  }
  return flags;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<TraceRecord> records = ReadTrace(flags.trace, TraceOptions());
  const double read_seconds = SecondsSince(start);

  const auto simulate_start = std::chrono::steady_clock::now();
  LruSim sim(flags.size, !flags.bytes);
  for (const TraceRecord& r : records) sim.Access(r.key, r.size);
  const double simulate_seconds = SecondsSince(simulate_start);
  const double total_seconds = SecondsSince(start);

  std::printf("requests: %zu\n", records.size());
  std::printf("cache_size: %llu %s\n", static_cast<unsigned long long>(flags.size),
              flags.bytes ? "bytes" : "objects");
  std::printf("miss_ratio: %.6f\n", sim.miss_ratio());
  std::printf("byte_miss_ratio: %.6f\n", sim.byte_miss_ratio());
  std::printf("read_seconds: %.4f\n", read_seconds);
  std::printf("simulate_seconds: %.4f\n", simulate_seconds);
  std::printf("requests_per_second: %.0f\n", records.size() / total_seconds);
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) {
  try {
    return symbiosis::Main(argc, argv);
  } catch (const symbiosis::InputError& e) {
    std::fprintf(stderr, "lru_miss_ratio: %s\n", e.what());
    return 2;
  }
}
