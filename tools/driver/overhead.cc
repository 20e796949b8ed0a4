// `overhead`: what Symbiosis costs in Stable. One DB is opened with Symbiosis; once it
// is Stable, the readers run in slices that alternate between Symbiosis
// reporting every access (A) and Symbiosis suspended (B, BenchDb::Suspend),
// in which each access takes the static configuration's path: same cache,
// same M_a, same blocks at the same addresses. Pairs go A B, B A, A B, ...
//
// Why one DB and slices: the host's other tenants change the vCPUs' speed
// by up to 2x from one second to the next, and runs one after another, side
// by side on one CPU each, or even two copies of the DB in one process
// alternating by the second differed by 4-6% for a whole run (memory
// placement): any of these hid a 1% cost. Adjacent slices of one DB see the
// same machine and the same memory.
//
// A budget that needs a cgroup runs in one, as `run` does; with
// --no-cgroup the page cache holds the DB and the readers are CPU-bound,
// where a per-access cost weighs most. Not measured either way: timed work
// that serves the whole process (the kernel budget's once-a-second
// PageCacheRoomMonitor) falls on both halves of a pair alike.
//
// --control makes both halves report (an A/A run): its ratios show what the
// method reads where there is nothing to find, the floor below which a
// cell's A/B ratio says nothing.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "driver/bench_cgroup.h"
#include "driver/commands.h"
#include "driver/db_layout.h"
#include "driver/json_lines.h"
#include "driver/requests.h"

namespace symbiosis::bench {
namespace {

struct OverheadConfig {
  OpenRequest open;  // the DB, M, the budget, the cgroup; Symbiosis sizes M_a
  DbLayout layout;
  std::string workload;
  int threads = 4;
  double warmup_s = 30;
  double settle_s = 120;  // at most this long past the warm-up for Stable
  double slice_s = 0.25;
  int pairs = 400;
  uint64_t seed = 1;
  bool progress = false;
  bool control = false;  // both halves report: an A/A run
};

struct MedianSummary {
  double median = 0, low = 0, high = 0;
};

// The median of `values` and its distribution-free interval of about 95%:
// the values of ranks n/2 -+ 0.98 sqrt(n), clamped (the sign test's normal
// approximation). All zero when `values` is empty.
MedianSummary Median(std::vector<double> values) {
  MedianSummary m;
  if (values.empty()) return m;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  m.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const auto at = [&](double rank) {
    return values[static_cast<size_t>(std::clamp(rank, 0.0, static_cast<double>(n - 1)))];
  };
  m.low = at(std::floor(n / 2.0 - half));
  m.high = at(std::ceil(n / 2.0 + half) - 1);
  return m;
}

int OverheadBody(BenchEngine& engine, const OverheadConfig& c) {
  std::unique_ptr<BenchDb> db = OpenOrExplain(engine, c.open);
  if (!db) return 2;
  if (!db->Suspend(false)) {
    std::fprintf(stderr, "%s: error: the %s plugin cannot suspend Symbiosis, which overhead needs\n",
                 ProgramName().c_str(), engine.name().c_str());
    return 2;
  }

  std::atomic<bool> stop{false};
  RequestErrors errors;
  struct alignas(64) Count {
    std::atomic<uint64_t> ops{0};
  };
  std::vector<Count> counts(c.threads);
  const uint32_t entry_bytes = kKeyBytes + c.layout.value_bytes;
  const auto reader = [&](int t) {
    std::unique_ptr<Workload> workload =
        MakeWorkload(c.workload, c.layout.keys, entry_bytes, c.seed * 7919 + t * 104729);
    std::string value;
    while (!stop.load(std::memory_order_relaxed)) {
      Request(*db, workload->Next(), nullptr, c.layout.value_bytes, c.layout.alpha_target, &value,
              &errors);
      counts[t].ops.fetch_add(1, std::memory_order_relaxed);
    }
  };
  const auto total_ops = [&] {
    uint64_t sum = 0;
    for (const Count& n : counts) sum += n.ops.load(std::memory_order_relaxed);
    return sum;
  };
  const auto interrupted = [] { return InterruptGuard::received() != 0; };
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const auto stable_at = [&](uint64_t* ma) {
    const EngineStats s = db->Stats();
    *ma = s.ma_bytes;
    return s.controller && s.controller->state == ControllerState::kStable &&
           s.controller->target_ma_bytes == s.controller->ma_bytes;
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < c.threads; ++t) threads.emplace_back(reader, t);
  const auto finish = [&] {
    stop = true;
    for (auto& t : threads) t.join();
    db->Suspend(false);
    if (c.progress) std::fprintf(stderr, "\n");
  };

  // Warm up until Stable.
  uint64_t ma = 0;
  const auto begin = std::chrono::steady_clock::now();
  while (!interrupted()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const double t = seconds_since(begin);
    if (c.progress) {
      const EngineStats s = db->Stats();
      std::fprintf(stderr, "\rwarming up  t=%6.1fs  M_a %6.1f MiB  %-9s", t,
                   s.ma_bytes / 1048576.0, StateName(s));
    }
    if (t >= c.warmup_s && stable_at(&ma)) break;
    if (t >= c.warmup_s + c.settle_s) {
      const std::string state = StateName(db->Stats());
      finish();
      Fail(1, "Symbiosis was not Stable " + std::to_string(static_cast<int>(t)) +
                  " s into the run (" + state +
                  "); lengthen --warmup, or choose a workload it settles in");
    }
  }

  // Pairs of slices; a pair counts only if Symbiosis stayed Stable at M_a.
  struct Slice {
    double ops_per_s = 0, hit_app = 0;
    uint64_t reported = 0;  // accesses the Controller counted
  };
  const auto reported = [](const EngineStats& s) {
    return s.controller ? s.controller->accesses : 0;
  };
  const auto run_slice = [&](bool suspended) {
    db->Suspend(suspended);
    const EngineStats before = db->Stats();
    const uint64_t ops_before = total_ops();
    const auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(c.slice_s));
    Slice slice;
    slice.ops_per_s = (total_ops() - ops_before) / seconds_since(start);
    const EngineStats after = db->Stats();
    slice.hit_app = HitRatios(after, before).first;
    slice.reported = reported(after) - reported(before);
    return slice;
  };
  std::vector<double> ratios;
  double sum_a = 0, sum_b = 0;
  int done = 0, invalid = 0;
  for (int i = 0; i < c.pairs && !interrupted(); ++i) {
    Slice a, b;
    if (i % 2 == 0) {
      a = run_slice(false);
      b = run_slice(!c.control);
    } else {
      b = run_slice(!c.control);
      a = run_slice(false);
    }
    uint64_t now_ma = 0;
    const bool valid = stable_at(&now_ma) && now_ma == ma && b.ops_per_s > 0;
    Json pair;
    pair["type"] = "pair";
    pair["pair"] = i;
    pair["first"] = i % 2 == 0 ? "a" : "b";
    pair["a_ops_per_s"] = Rounded(a.ops_per_s, 1);
    pair["b_ops_per_s"] = Rounded(b.ops_per_s, 1);
    pair["ratio"] = Rounded(b.ops_per_s > 0 ? a.ops_per_s / b.ops_per_s : 0.0, 5);
    pair["a_hit_app"] = a.hit_app;
    pair["b_hit_app"] = b.hit_app;
    pair["a_reported"] = a.reported;
    pair["b_reported"] = b.reported;
    pair["valid"] = valid;
    pair["ma_bytes"] = now_ma;
    PrintLine(pair);
    ++done;
    if (!valid) {
      ++invalid;
      continue;
    }
    ratios.push_back(a.ops_per_s / b.ops_per_s);
    sum_a += a.ops_per_s;
    sum_b += b.ops_per_s;
    if (c.progress) {
      const MedianSummary m = Median(ratios);
      std::fprintf(stderr, "\rpair %5d of %d  %s %.4f (median %.4f, %.4f-%.4f)   ", i + 1,
                   c.pairs, c.control ? "A/A" : "Symbiosis/static", sum_a / sum_b, m.median,
                   m.low, m.high);
    }
  }
  finish();

  const MedianSummary m = Median(ratios);
  const size_t n = ratios.size();
  Json summary;
  summary["type"] = "overhead_summary";
  summary["budget"] = c.open.budget;
  summary["memory_bytes"] = c.open.memory;
  summary["ma_bytes"] = ma;
  summary["workload"] = c.workload;
  summary["threads"] = c.threads;
  summary["slice_s"] = Rounded(c.slice_s, 3);
  summary["control"] = c.control;
  summary["pairs"] = done;
  summary["valid_pairs"] = n;
  summary["a_ops_per_s"] = Rounded(n ? sum_a / n : 0.0, 1);
  summary["b_ops_per_s"] = Rounded(n ? sum_b / n : 0.0, 1);
  summary["ratio"] = Rounded(sum_b > 0 ? sum_a / sum_b : 0.0, 5);
  summary["median_ratio"] = Rounded(m.median, 5);
  summary["median_low"] = Rounded(m.low, 5);
  summary["median_high"] = Rounded(m.high, 5);
  summary["errors"] = errors.count();
  summary["first_error"] = errors.count() ? Json(errors.first()) : Json(nullptr);
  PrintLine(summary);
  if (invalid > 0) {
    std::fprintf(stderr, "%s: note: %d of %d pairs left out: Symbiosis left Stable at %llu bytes\n",
                 ProgramName().c_str(), invalid, done, static_cast<unsigned long long>(ma));
  }
  if (interrupted()) return 130;
  if (errors.count() > 0) Fail(1, FailedRequests(errors, total_ops()));
  if (n == 0) Fail(1, "no pair counted: Symbiosis never stayed Stable; see the pair lines");
  return 0;
}

}  // namespace

int Overhead(BenchEngine& engine, const Flags& flags) {
  OverheadConfig c;
  if (!flags.Has("db") || !flags.Has("memory")) Fail(2, "overhead needs --db DIR and --memory SIZE");
  c.open.path = flags.Get("db", "");
  c.layout = ReadLayout(c.open.path, ProgramName());
  c.open.memory = ParseMemory(engine, flags);
  c.open.budget = ParseBudget(engine, flags);
  c.workload = flags.Get("workload", "uniform");
  MakeWorkload(c.workload, std::max<uint64_t>(1, c.layout.keys), kKeyBytes + c.layout.value_bytes, 1);
  c.threads = ParseThreads(flags);
  c.warmup_s = ParseSeconds(flags.Get("warmup", "30s"), "--warmup");
  c.slice_s = ParseSeconds(flags.Get("slice", "250ms"), "--slice");
  if (c.slice_s < 0.05) Fail(2, "--slice must be at least 50ms, not '" + flags.Get("slice", "") + "'");
  const uint64_t pairs = ParseCount(flags.Get("pairs", "400"), "--pairs");
  if (pairs < 1 || pairs > 1000000) Fail(2, "--pairs must be 1..1000000");
  c.pairs = static_cast<int>(pairs);
  c.seed = ParseCount(flags.Get("seed", "1"), "--seed");
  c.progress = flags.Has("progress");
  c.control = flags.Has("control");
  if (flags.Has("app-cache-overhead")) {
    c.open.app_cache_overhead = ParseOverhead(flags.Get("app-cache-overhead", ""));
  }
  c.open.reserve = ParseBytes(flags.Get("reserve", "32MiB"), "--reserve");
  return RunUnderBudget(
      engine.NeedsCgroup(c.open.budget) && !flags.Has("no-cgroup"), &c.open,
      [&](const CgroupError& e) {
        Fail(2, "cannot make a memory cgroup for the " + c.open.budget + " budget (" + e.what() +
                    "); run as root, or add --no-cgroup (the page cache then holds the whole DB)");
      },
      [&] { return OverheadBody(engine, c); });
}

}  // namespace symbiosis::bench
