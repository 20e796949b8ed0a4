// mrc_bench: how fast the miss-ratio-curve builders run, and how much
// memory they hold, on a generated request stream.
//
//   mrc_bench --algo lru|shards|krr [--requests N] [--keys K]
//             [--workload SPEC] [--rate R] [--min-keys N] [--k K] [--bytes]
//             [--repeats N] [--stream]
//
// Default: the requests (scrambled zipfian over K keys, each key a fixed
// size in [512, 8192) bytes) are generated before timing, then each repeat
// times a fresh builder over all of them plus one Curve at 40 sizes, and
// prints requests/s (wall and thread CPU) and the builder's memory; the
// medians come last. --stream generates the requests in batches of a
// million while feeding them (for streams too long to hold: the memory
// test), and reports the process's peak resident memory, which then
// includes no trace.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "symbiosis/error.h"
#include "symbiosis/exact_lru_mrc.h"
#include "base/hash.h"
#include "symbiosis/krr.h"
#include "symbiosis/mrc.h"
#include "symbiosis/shards.h"
#include "symbiosis/trace.h"
#include "symbiosis/workload.h"

namespace symbiosis {
namespace {

struct Args {
  std::string algo = "lru";
  uint64_t requests = 10'000'000;
  uint64_t keys = 1'000'000;
  std::string workload = "zipfian";
  double rate = 0;
  uint64_t min_keys = 0;  // the sampled methods' floor (sample_threshold.h)
  uint32_t k = 5;
  bool bytes = false;
  int repeats = 3;
  bool stream = false;
};

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "mrc_bench: %s\nusage: mrc_bench --algo lru|shards|krr [--requests N] "
               "[--keys K] [--workload SPEC] [--rate R] [--min-keys N] [--k K] [--bytes] "
               "[--repeats N] [--stream]\n",
               why.c_str());
  std::exit(2);
}

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i++) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--algo") a.algo = value();
    else if (flag == "--requests") a.requests = ParseCount(value(), "--requests");
    else if (flag == "--keys") a.keys = ParseCount(value(), "--keys");
    else if (flag == "--workload") a.workload = value();
    else if (flag == "--rate") a.rate = std::atof(value().c_str());
    else if (flag == "--min-keys") a.min_keys = ParseCount(value(), "--min-keys");
    else if (flag == "--k") a.k = static_cast<uint32_t>(ParseCount(value(), "--k"));
    else if (flag == "--bytes") a.bytes = true;
    else if (flag == "--repeats") a.repeats = static_cast<int>(ParseCount(value(), "--repeats"));
    else if (flag == "--stream") a.stream = true;
    else Usage("unknown flag " + flag);
  }
  if (a.algo != "lru" && a.algo != "shards" && a.algo != "krr") Usage("unknown --algo " + a.algo);
  if (a.repeats < 1 || a.requests == 0 || a.keys == 0) Usage("counts must be above 0");
  return a;
}

std::unique_ptr<MrcBuilder> Make(const Args& a) {
  const CacheUnit unit = a.bytes ? CacheUnit::kBytes : CacheUnit::kObjects;
  if (a.algo == "lru") return std::make_unique<ExactLruMrc>(unit);
  if (a.algo == "shards") {
    ShardsOptions o;
    o.unit = unit;
    o.rate = a.rate > 0 ? a.rate : 0.01;
    o.min_keys = a.min_keys;
    return std::make_unique<ShardsMrc>(o);
  }
  KrrOptions o;
  o.unit = unit;
  o.k = a.k;
  o.rate = a.rate > 0 ? a.rate : 1;
  o.min_keys = a.min_keys;
  return std::make_unique<KrrMrc>(o);
}

// The generated stream, batch by batch.
class Requests {
 public:
  explicit Requests(const Args& a) : workload_(MakeWorkload(a.workload, a.keys, 128, 1)) {}
  void Fill(size_t n, std::vector<TraceRecord>* out) {
    out->resize(n);
    for (TraceRecord& r : *out) {
      r.key = workload_->Next().first_key;
      r.size = static_cast<uint32_t>(512 + Mix64(r.key) % 7680);
    }
  }

 private:
  std::unique_ptr<Workload> workload_;
};

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Run(const Args& a) {
  std::printf("mrc_bench: %s%s, %s over %llu keys, %llu requests, rate %g, K %u\n",
              a.algo.c_str(), a.bytes ? " (bytes)" : "", a.workload.c_str(),
              static_cast<unsigned long long>(a.keys),
              static_cast<unsigned long long>(a.requests), a.rate > 0 ? a.rate : 0.0, a.k);
  Requests requests(a);
  if (a.stream) {
    auto builder = Make(a);
    std::vector<TraceRecord> batch;
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t done = 0; done < a.requests;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(1'000'000, a.requests - done));
      requests.Fill(n, &batch);
      for (const TraceRecord& r : batch) builder->Access(r.key, r.size);
      done += n;
    }
    const MissRatioCurve c = builder->Curve(EvenSizes(builder->WorkingSet(), 40));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("stream: %.1f s (generation included), builder memory %.1f MiB, peak RSS "
                "%.1f MiB, working set %llu, miss ratio at the middle size %.4f\n",
                seconds, builder->MemoryUsage() / 1048576.0, usage.ru_maxrss / 1024.0,
                static_cast<unsigned long long>(builder->WorkingSet()), c.miss_ratios[c.miss_ratios.size() / 2]);
    return 0;
  }
  std::vector<TraceRecord> trace;
  requests.Fill(static_cast<size_t>(a.requests), &trace);
  std::vector<double> wall, cpu;
  for (int repeat = 0; repeat < a.repeats; repeat++) {
    auto builder = Make(a);
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    for (const TraceRecord& r : trace) builder->Access(r.key, r.size);
    const MissRatioCurve c = builder->Curve(EvenSizes(builder->WorkingSet(), 40));
    const double w =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double t = ThreadCpuSeconds() - cpu_start;
    wall.push_back(trace.size() / w / 1e6);
    cpu.push_back(trace.size() / t / 1e6);
    std::printf("repeat %d: %.2f M requests/s (wall), %.2f (thread CPU), memory %.1f MiB, "
                "miss ratio at the middle size %.4f\n",
                repeat + 1, wall.back(), cpu.back(), builder->MemoryUsage() / 1048576.0,
                c.miss_ratios[c.miss_ratios.size() / 2]);
  }
  std::printf("median: %.2f M requests/s (wall), %.2f (thread CPU)\n", Median(wall),
              Median(cpu));
  return 0;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) {
  try {
    return symbiosis::Run(symbiosis::Parse(argc, argv));
  } catch (const symbiosis::InputError& e) {
    std::fprintf(stderr, "mrc_bench: error: %s\n", e.what());
    return 2;
  }
}
