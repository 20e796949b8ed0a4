// `run`: one configuration (static-default, static-max, static-<i> or
// symbiosis) under one budget. Reader threads issue the workload's
// requests (phase by phase, or for --duration) and time each into their
// own Histogram; the main thread wakes every 50 ms, prints an interval
// line every --interval and the summary at the end, leaving --warmup out
// of the summary.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "driver/bench_cgroup.h"
#include "driver/commands.h"
#include "driver/db_layout.h"
#include "driver/histogram.h"
#include "driver/json_lines.h"
#include "driver/requests.h"
#include "symbiosis/error.h"

namespace symbiosis::bench {
namespace {

struct RunConfig {
  OpenRequest open;  // the DB, M, the budget, the cgroup; M_a set at the run
  std::string name;
  DbLayout layout;
  std::vector<Phase> phases;
  double duration_s = 0;  // 0: until the phases' ops are done
  uint64_t ops = 0;
  double warmup_s = 0;
  double interval_s = 1;
  int threads = 4;
  double overwrite = 0;
  uint64_t seed = 1;
  bool progress = false;
};

// M_a for a static configuration, or nullopt for symbiosis.
std::optional<uint64_t> StaticAppBytes(const std::string& name, uint64_t m,
                                       uint64_t default_bytes) {
  if (name == "symbiosis") return std::nullopt;
  if (name == "static-default") return std::min(default_bytes, m);
  if (name == "static-max") return m;
  if (name.rfind("static-", 0) == 0 && name.size() == 8 && name[7] >= '0' && name[7] <= '8') {
    return m * static_cast<uint64_t>(name[7] - '0') / 8;
  }
  throw InputError("--config '" + name +
                   "' is unknown; use symbiosis, static-default, static-max or static-0 .. "
                   "static-8");
}

// The malloc this process runs with: "jemalloc" when it was preloaded
// (`symbiosis bench --allocator jemalloc`), else the C library's.
std::string AllocatorName() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("/libjemalloc") != std::string::npos) return "jemalloc";
  }
  return "system";
}

// The rounds that ended since the last interval line, as that line's
// "rounds".
Json NewRounds(const EngineStats& stats, size_t* reported) {
  Json events = Json::array();
  if (!stats.controller) return events;
  const std::vector<RoundStats>& rounds = stats.controller->rounds;
  for (size_t r = *reported; r < rounds.size(); ++r) {
    const RoundStats& round = rounds[r];
    if (round.end_access == 0) continue;
    events.push_back({{"start_access", round.start_access},
                      {"trigger", round.trigger},
                      {"adopted_ma_bytes", round.adopted_ma_bytes},
                      {"reason", round.reason}});
    *reported = r + 1;
  }
  return events;
}

int RunBody(BenchEngine& engine, const RunConfig& c) {
  OpenRequest request = c.open;
  request.static_ma_bytes =
      StaticAppBytes(c.name, c.open.memory, engine.default_ma_bytes(c.open.memory));
  std::unique_ptr<BenchDb> db = OpenOrExplain(engine, request);
  if (!db) return 2;
  const uint32_t entry_bytes = kKeyBytes + c.layout.value_bytes;
  uint64_t phase_ops_total = 0;
  std::vector<uint64_t> phase_end;  // cumulative op counts
  for (const auto& p : c.phases) {
    phase_ops_total += p.requests == 0 ? c.ops : p.requests;
    phase_end.push_back(phase_ops_total);
  }
  const uint64_t total_ops = c.duration_s > 0 ? UINT64_MAX : phase_ops_total;

  std::atomic<uint64_t> issued{0};
  std::atomic<bool> stop{false};
  RequestErrors errors;
  std::vector<std::unique_ptr<Histogram>> histograms;
  for (int t = 0; t < c.threads; ++t) histograms.push_back(std::make_unique<Histogram>());
  const auto phase_of = [&](uint64_t op) {
    for (size_t i = 0; i < phase_end.size(); ++i) {
      if (op < phase_end[i]) return i;
    }
    return phase_end.size() - 1;  // time-bounded runs stay in the last phase
  };
  const auto reader = [&](int t) {
    std::mt19937_64 rng(c.seed * 1000 + t);
    std::unique_ptr<Workload> workload;
    size_t phase = SIZE_MAX;
    std::string value, write_value(c.layout.value_bytes, '\0');
    while (!stop.load(std::memory_order_relaxed)) {
      const uint64_t op = issued.fetch_add(1, std::memory_order_relaxed);
      if (op >= total_ops) break;
      const size_t p = phase_of(op);
      if (p != phase) {
        phase = p;
        const uint64_t bytes = c.phases[p].data_bytes;
        const uint64_t keys = bytes == 0 ? c.layout.keys
                                         : std::min(c.layout.keys,
                                                    std::max<uint64_t>(1, bytes / entry_bytes));
        workload = MakeWorkload(c.phases[p].spec, keys, entry_bytes, c.seed * 7919 + t * 104729 + p);
      }
      const KeyRequest request = workload->Next();
      const auto start = std::chrono::steady_clock::now();
      const bool write =
          c.overwrite > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < c.overwrite;
      if (write) FillValue(request.first_key, c.seed + 1 + op, c.layout.alpha_target, &write_value);
      Request(*db, request, write ? &write_value : nullptr, c.layout.value_bytes,
              c.layout.alpha_target, &value, &errors);
      histograms[t]->Add(static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                               start)
              .count()));
    }
  };

  const auto snapshot = [&](std::vector<uint64_t>* counts, uint64_t* sum) {
    counts->assign(Histogram::kBuckets, 0);
    *sum = 0;
    for (const auto& h : histograms) h->AddTo(counts, sum);
  };

  // Kernel budget: what the cgroup holds, to compare the real page cache
  // with the M - M_a the Controller assumes.
  std::optional<MemoryCgroup> cgroup;
  if (c.open.in_cgroup) cgroup = DetectMemoryCgroup();

  const auto begin = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < c.threads; ++t) threads.emplace_back(reader, t);

  std::vector<uint64_t> prev_counts(Histogram::kBuckets, 0), counts, warm_counts;
  uint64_t prev_sum = 0, sum = 0, warm_sum = 0;
  EngineStats prev_stats = db->Stats(), warm_stats = prev_stats;
  bool warm = c.warmup_s == 0;
  if (warm) warm_counts.assign(Histogram::kBuckets, 0);
  size_t rounds_reported = 0;
  uint64_t prev_errors = 0;
  double elapsed = 0;
  double next_report = c.interval_s;
  while (true) {
    const double step = std::min(0.05, c.interval_s);
    std::this_thread::sleep_for(std::chrono::duration<double>(step));
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    const bool done = (c.duration_s > 0 && elapsed >= c.duration_s) ||
                      issued.load(std::memory_order_relaxed) >= total_ops ||
                      InterruptGuard::received() != 0;
    if (elapsed < next_report && !done) continue;
    next_report += c.interval_s;
    snapshot(&counts, &sum);
    std::vector<uint64_t> delta(Histogram::kBuckets);
    for (int b = 0; b < Histogram::kBuckets; ++b) delta[b] = counts[b] - prev_counts[b];
    const Window w = Summarize(delta, sum - prev_sum);
    const EngineStats stats = db->Stats();
    const CgroupMemoryUsage usage = cgroup ? ReadMemoryUsage(*cgroup) : CgroupMemoryUsage{};
    const uint64_t issued_now = issued.load();
    Json line;
    line["type"] = "interval";
    line["t"] = Rounded(elapsed, 3);
    line["ops"] = w.ops;
    line["throughput_ops"] = Rounded(w.ops / c.interval_s, 1);
    line["mean_us"] = Rounded(w.mean_us, 2);
    line["p50_us"] = Rounded(w.p50_us, 2);
    line["p95_us"] = Rounded(w.p95_us, 2);
    line["p99_us"] = Rounded(w.p99_us, 2);
    const auto [hit_app, hit_second_tier] = HitRatios(stats, prev_stats);
    line["hit_app"] = hit_app;
    line["hit_second_tier"] = hit_second_tier;
    line["ma_bytes"] = stats.ma_bytes;
    line["state"] = StateName(stats);
    line["phase"] = phase_of(issued_now == 0 ? 0 : std::min(issued_now, total_ops) - 1);
    line["warm"] = warm;
    line["app_usage_bytes"] = stats.app_usage_bytes;
    line["cgroup_file_bytes"] = usage.file;
    line["cgroup_anon_bytes"] = usage.anon;
    line["errors"] = errors.count() - prev_errors;
    line["rounds"] = NewRounds(stats, &rounds_reported);
    if (!stats.engine_counters.empty()) {
      Json counters = Json::object();
      for (const auto& [name, value] : stats.engine_counters) counters[name] = value;
      line["engine_counters"] = counters;
    }
    PrintLine(line);
    prev_errors = errors.count();
    if (c.progress) {
      std::fprintf(stderr,
                   "\r%-15s t=%6.1fs  %9.0f ops/s  mean %7.1f us  p99 %8.1f us  M_a %6.0f MiB  %s   ",
                   c.name.c_str(), elapsed, w.ops / c.interval_s, w.mean_us, w.p99_us,
                   stats.ma_bytes / 1048576.0, StateName(stats));
    }
    prev_counts = counts;
    prev_sum = sum;
    prev_stats = stats;
    if (!warm && elapsed >= c.warmup_s) {
      warm = true;
      warm_counts = counts;
      warm_sum = sum;
      warm_stats = stats;
    }
    if (done) break;
  }
  stop = true;
  for (auto& t : threads) t.join();
  if (c.progress) std::fprintf(stderr, "\n");
  snapshot(&counts, &sum);
  if (!warm) {  // the run ended inside the warm-up: report all of it
    warm_counts.assign(Histogram::kBuckets, 0);
    warm_sum = 0;
    warm_stats = EngineStats{};
  }
  std::vector<uint64_t> measured(Histogram::kBuckets);
  for (int b = 0; b < Histogram::kBuckets; ++b) measured[b] = counts[b] - warm_counts[b];
  const Window w = Summarize(measured, sum - warm_sum);
  const double measured_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() -
      (warm ? c.warmup_s : 0);
  const EngineStats stats = db->Stats();
  // A failed run reports no throughput or latency: they would describe
  // requests that did not do their work.
  const bool failed = errors.count() > 0;
  const auto number = [&](double x, int decimals) {
    return failed ? Json(nullptr) : Json(Rounded(x, decimals));
  };
  uint64_t requests = 0;
  for (uint64_t n : counts) requests += n;
  Json counters = Json::object();
  for (const auto& [name, value] : stats.engine_counters) counters[name] = value;
  Json summary;
  summary["type"] = "summary";
  summary["name"] = c.name;
  summary["budget"] = c.open.budget;
  summary["memory_bytes"] = c.open.memory;
  summary["reserve_bytes"] = c.open.reserve;
  summary["cache_budget_bytes"] = stats.memory_bytes;
  summary["final_ma_bytes"] = stats.ma_bytes;
  summary["throughput_ops"] = number(measured_s > 0 ? w.ops / measured_s : 0.0, 1);
  summary["mean_us"] = number(w.mean_us, 2);
  summary["p50_us"] = number(w.p50_us, 2);
  summary["p95_us"] = number(w.p95_us, 2);
  summary["p99_us"] = number(w.p99_us, 2);
  const auto [hit_app, hit_second_tier] = HitRatios(stats, warm_stats);
  summary["hit_app"] = hit_app;
  summary["hit_second_tier"] = hit_second_tier;
  summary["ops"] = w.ops;
  summary["requests"] = requests;
  summary["errors"] = errors.count();
  summary["failed"] = failed;
  summary["first_error"] = failed ? Json(errors.first()) : Json(nullptr);
  summary["measured_s"] = Rounded(measured_s, 2);
  summary["allocator"] = AllocatorName();
  summary["engine_counters"] = counters;
  summary["controller"] =
      stats.controller ? Json::parse(ToJson(*stats.controller)) : Json(nullptr);
  PrintLine(summary);
  if (InterruptGuard::received() != 0) return 130;
  if (failed) Fail(1, FailedRequests(errors, requests));
  return 0;
}

}  // namespace

int Run(BenchEngine& engine, const Flags& flags) {
  RunConfig c;
  if (!flags.Has("db") || !flags.Has("memory") || !flags.Has("config")) {
    Fail(2, "run needs --db DIR, --memory SIZE and --config NAME");
  }
  c.open.path = flags.Get("db", "");
  c.name = flags.Get("config", "");
  c.layout = ReadLayout(c.open.path, ProgramName());
  c.open.memory = ParseMemory(engine, flags);
  c.open.reserve = ParseBytes(flags.Get("reserve", "32MiB"), "--reserve");
  // Validates the name.
  StaticAppBytes(c.name, c.open.memory, engine.default_ma_bytes(c.open.memory));
  c.open.budget = ParseBudget(engine, flags);
  if (flags.Has("phases") && flags.Has("workload")) Fail(2, "give --workload or --phases, not both");
  c.phases = flags.Has("phases") ? ParsePhases(flags.Get("phases", ""))
                                 : std::vector<Phase>{{flags.Get("workload", "uniform"), 0, 0}};
  for (const auto& p : c.phases) {
    MakeWorkload(p.spec, std::max<uint64_t>(1, c.layout.keys), kKeyBytes + c.layout.value_bytes, 1);
  }
  c.duration_s = flags.Has("duration") ? ParseSeconds(flags.Get("duration", ""), "--duration") : 0;
  c.ops = flags.Has("ops") ? ParseCount(flags.Get("ops", ""), "--ops") : 0;
  const bool phases_counted = std::all_of(c.phases.begin(), c.phases.end(),
                                          [](const Phase& p) { return p.requests > 0; });
  if (c.duration_s == 0 && c.ops == 0 && !phases_counted) c.duration_s = 30;
  c.warmup_s = ParseSeconds(flags.Get("warmup", "0"), "--warmup");
  if (c.duration_s > 0 && c.warmup_s >= c.duration_s) {
    Fail(2, "--warmup " + flags.Get("warmup", "") + " is not shorter than --duration " +
                flags.Get("duration", "") +
                ", which includes it: nothing would be measured; lengthen --duration");
  }
  c.interval_s = ParseSeconds(flags.Get("interval", "1"), "--interval");
  if (c.interval_s <= 0) Fail(2, "--interval must be positive");
  c.threads = ParseThreads(flags);
  c.overwrite = ParseFraction(flags.Get("overwrite", "0"), "--overwrite", true, true);
  c.open.device_latency_ns = static_cast<uint64_t>(
      ParseSeconds(flags.Get("device-latency", "0"), "--device-latency") * 1e9);
  c.seed = ParseCount(flags.Get("seed", "1"), "--seed");
  c.progress = flags.Has("progress");
  if (flags.Has("app-cache-overhead")) {
    c.open.app_cache_overhead = ParseOverhead(flags.Get("app-cache-overhead", ""));
  }
  for (const FlagSpec& flag : engine.RunFlags()) {
    if (flags.Has(flag.name)) c.open.engine_flags.values[flag.name] = flags.Get(flag.name, "");
  }
  if (const std::string error = engine.CheckRunFlags(c.open.engine_flags); !error.empty()) {
    Fail(2, error);
  }
  return RunUnderBudget(
      engine.NeedsCgroup(c.open.budget), &c.open,
      [&](const CgroupError& e) {
        const std::string fallback = engine.FallbackBudget();
        if (!flags.Has("allow-fallback") || fallback.empty()) {
          Fail(2, "cannot make a memory cgroup for the " + c.open.budget + " budget (" +
                      e.what() +
                      "); run as root" + (fallback.empty() ? "" : ", or use --budget " + fallback +
                                                                   ", or add --allow-fallback"));
        }
        std::fprintf(stderr, "%s: note: no memory cgroup (%s); falling back to the %s budget\n",
                     ProgramName().c_str(), e.what(), fallback.c_str());
        c.open.budget = fallback;
      },
      [&] { return RunBody(engine, c); });
}

}  // namespace symbiosis::bench
