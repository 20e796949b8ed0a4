// controller_bench: the online Controller's three targets.
//
//   controller_bench [--repeats N] [--accesses N] [--dists uniform,zipfian]
//                    [--part all|cost|memory|convergence|tiers]
//                    [--convergence-accesses N] [--seed N]
//
// cost         Added ns per application-cache access of
//              Controller::RecordAppAccess, plus RecordRead on the 10% of
//              accesses that miss, at R = 1/64 on one thread, against an
//              empty callback: the same calls, with the same arguments,
//              through function pointers to functions that do nothing and
//              cannot be inlined. Blocks are a DataLayout of D = 5 GiB
//              (4 KiB blocks, ~2 KiB + 5 B on disk, packed in 2 MiB
//              files), M = 1 GiB; the accesses and their hit/miss flags are
//              generated before timing. Two Controllers are held in a state:
//                Stable:   no round at start, a short settle, and hit
//                          ratios that do not drift, so no round starts;
//                Adapting: the start round, held in its warm-up (huge
//                          round_warmup_accesses), so every sampled
//                          access feeds both ghosts.
//              Each is warmed by one untimed pass; then each repeat times
//              the pairs (baseline, Stable) and (baseline, Adapting), in
//              the opposite order on odd repeats. The state is checked
//              after every run. Per access: CPU time of the thread (the
//              stabler figure on a shared machine) and wall time.
//              Targets: median added cost <= 50 ns Stable, <= 150 ns
//              Adapting.
// memory       M = 1 GiB, D = 5 GiB, uniform, default config: ghost
//              memory through the start round (timeline), its peak against
//              0.05% of M (536,871 bytes), and 0 once Stable again. The
//              peak is broken down by replaying the round's sampled
//              accesses through a GhostLru and a PageCacheModel built as
//              the round builds them (stage 0's kernel size throughout).
// convergence  RunReplay at the defaults, M = 1 GiB, D = 2 GiB, uniform,
//              zipfian and hotspot20: accesses per round (target <= 1.5M)
//              and its decision, scored by RunTwoLevelStudy over the
//              round's 9 candidate M_a (warm-up 0.5): L_e of the adopted
//              M_a over the best candidate's.
// tiers        The round's cost per sampled access with RocksDB's engine
//              budget (GhostSim with rocksdb_tiers: one RocksDbCacheModel)
//              against the LRU ghosts (GhostLru + the Linux kernel ghost),
//              as the RocksDB grid runs them: M = 64 MiB, D = 80 MiB
//              (M/D_u 0.8), R = 1, hotspot10 and uniform. Both ghosts
//              begin a round over 9 candidates at M_a = 8 MiB, take
//              --accesses untimed accesses (the warm-up), then measure
//              candidate 4 (32 MiB); each repeat times both, in the
//              opposite order on odd repeats. Also the time of the model's
//              stage changes (a copy of the warm state and its Resettle).
//
// Exits 2 on a bad flag, 1 if a Controller was not in the state a
// measurement needs.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "symbiosis/block.h"
#include "symbiosis/block_trace.h"
#include "symbiosis/controller.h"
#include "symbiosis/error.h"
#include "model/ghost_lru.h"
#include "symbiosis/layout.h"
#include "model/page_cache_model.h"
#include "online/ghost_sim.h"
#include "symbiosis/replay.h"
#include "model/rocksdb_cache_model.h"
#include "model/sampler.h"
#include "symbiosis/two_level_study.h"
#include "symbiosis/workload.h"

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

struct Flags {
  uint64_t repeats = 7;
  uint64_t accesses = 4'000'000;  // per timed run
  std::vector<std::string> dists = {"uniform", "zipfian"};
  std::string part = "all";
  uint64_t convergence_accesses = 3'000'000;
  uint64_t seed = 42;
  // The cost part's setting: the paper's scale by default; a held-out
  // cell's (small D, R raised to sample 256 groups, most accesses
  // missing) with --data-size 128MiB --memory 48MiB --sample-rate 0.25
  // --app-hit 0.1.
  uint64_t data_bytes = 5 * (uint64_t{1} << 30);
  uint64_t memory_bytes = uint64_t{1} << 30;
  double sample_rate = 1.0 / 64;
  double app_hit = 0.9;
  bool rocksdb_tiers = false;  // --model rocksdb: the engine budget's tiers
  // --stage measure: the Adapting Controller is held in the round's
  // measuring stage (every candidate's ghosts, RocksDB's tiers copied per
  // candidate) rather than its warm-up.
  bool measuring = false;
};

// --round one: the paper's round, one candidate at a time on one kernel
// ghost (ControllerConfig::parallel_candidates = false).
bool g_one_at_a_time = false;

[[noreturn]] void Usage(const std::string& error, int status = 2) {
  std::fprintf(status ? stderr : stdout,
               "controller_bench: %s\n"
               "usage: controller_bench [--repeats N (1..101, default 7)]\n"
               "         [--accesses N (timed accesses per run, 100k..50M, default 4M)]\n"
               "         [--dists uniform,zipfian (workload specs for the cost part)]\n"
               "         [--part all|cost|memory|convergence|tiers]\n"
               "         [--convergence-accesses N (1M..20M, default 3M)] [--seed N]\n"
               "         [--round all|one (candidates all at once, the default, or one\n"
               "          at a time as the paper's round)]\n"
               "         cost part: [--data-size BYTES (default 5GiB)] [--memory BYTES (M,\n"
               "          default 1GiB)] [--sample-rate R (default 0.015625)] [--app-hit H\n"
               "          (default 0.9)] [--model kernel|rocksdb (RocksDB's two tiers)]\n"
               "          [--stage warmup|measure (where the Adapting one is held)]\n",
               error.c_str());
  std::exit(status);
}

uint64_t CountFlag(const std::string& name, const std::string& value, uint64_t lo, uint64_t hi) {
  uint64_t n = 0;
  try {
    n = ParseCount(value, name);
  } catch (const InputError& e) {
    Usage(e.what());
  }
  if (n < lo || n > hi) {
    Usage(name + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], not " +
          value);
  }
  return n;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
    } else if (arg == "-h" || arg == "--help") {
      Usage("help", 0);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      Usage("flag " + arg + " needs a value");
    }
    if (arg == "--repeats") {
      f.repeats = CountFlag(arg, value, 1, 101);
    } else if (arg == "--accesses") {
      f.accesses = CountFlag(arg, value, 100'000, 50'000'000);
    } else if (arg == "--convergence-accesses") {
      f.convergence_accesses = CountFlag(arg, value, 1'000'000, 20'000'000);
    } else if (arg == "--seed") {
      f.seed = CountFlag(arg, value, 0, UINT64_MAX);
    } else if (arg == "--part") {
      if (value != "all" && value != "cost" && value != "memory" && value != "convergence" &&
          value != "tiers") {
        Usage("--part must be all, cost, memory, convergence or tiers, not '" + value + "'");
      }
      f.part = value;
    } else if (arg == "--round") {
      if (value != "all" && value != "one") Usage("--round must be all or one, not '" + value + "'");
      g_one_at_a_time = value == "one";
    } else if (arg == "--data-size" || arg == "--memory") {
      uint64_t bytes = 0;
      try {
        bytes = ParseBytes(value, arg);
      } catch (const InputError& e) {
        Usage(e.what());
      }
      if (bytes < 16 * kMiB || bytes > 64 * kGiB) Usage(arg + " must be in [16MiB, 64GiB], not " + value);
      (arg == "--memory" ? f.memory_bytes : f.data_bytes) = bytes;
    } else if (arg == "--sample-rate" || arg == "--app-hit") {
      char* end = nullptr;
      const double x = std::strtod(value.c_str(), &end);
      const bool rate = arg == "--sample-rate";
      if (end == value.c_str() || *end != '\0' || !(rate ? x > 0 && x <= 1 : x >= 0 && x < 1)) {
        Usage(arg + (rate ? " must be in (0, 1]" : " must be in [0, 1)") + ", not '" + value + "'");
      }
      (rate ? f.sample_rate : f.app_hit) = x;
    } else if (arg == "--stage") {
      if (value != "warmup" && value != "measure") Usage("--stage must be warmup or measure, not '" + value + "'");
      f.measuring = value == "measure";
    } else if (arg == "--model") {
      if (value != "kernel" && value != "rocksdb") Usage("--model must be kernel or rocksdb, not '" + value + "'");
      f.rocksdb_tiers = value == "rocksdb";
    } else if (arg == "--dists") {
      f.dists.clear();
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = std::min(value.find(',', start), value.size());
        const std::string spec = value.substr(start, comma - start);
        if (spec.empty()) Usage("--dists: empty workload spec in '" + value + "'");
        try {
          MakeWorkload(spec, 1000, 128, 1);
        } catch (const InputError& e) {
          Usage(std::string("--dists: ") + e.what());
        }
        f.dists.push_back(spec);
        start = comma + 1;
      }
    } else {
      Usage("unknown flag " + arg);
    }
  }
  return f;
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

DataLayout MakeLayout(uint64_t data_bytes) {
  LayoutOptions lo;
  lo.data_bytes = data_bytes;
  return DataLayout(lo);
}

// Controller config for M over `layout`, defaults otherwise.
ControllerConfig BaseConfig(const DataLayout& layout, uint64_t memory) {
  ControllerConfig c;
  c.memory_bytes = memory;
  c.block_disk_bytes = layout.mean_disk_block_bytes();
  c.parallel_candidates = !g_one_at_a_time;
  return c;
}

// One access's outcome in the engine: bit 0 application hit, bit 1 (on a
// miss) the kernel held the bytes.
constexpr uint8_t kAppHit = 1;
constexpr uint8_t kSecondTierHit = 2;

// The events an engine would report, generated before timing: blocks in
// access order, each with its outcome drawn independently (so the windows'
// hit ratios stay put).
struct Events {
  std::vector<Block> blocks;
  std::vector<uint8_t> flags;
  uint64_t sampled = 0;  // accesses whose group is in the sample
  uint64_t misses = 0;
};

Events MakeEvents(const DataLayout& layout, const std::string& workload, uint64_t n,
                  uint64_t seed, double app_hit, double second_tier_hit, const Sampler& sampler) {
  const BlockTrace trace = TraceFromWorkload(layout, workload, n, seed);
  Events e;
  n = std::min<uint64_t>(n, trace.accesses.size());
  e.blocks.reserve(n);
  e.flags.reserve(n);
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15 + 7);
  std::bernoulli_distribution app(app_hit), kernel(second_tier_hit);
  for (uint64_t i = 0; i < n; ++i) {
    const Block& b = trace.blocks[trace.accesses[i]];
    e.blocks.push_back(b);
    uint8_t f = 0;
    if (app(rng)) {
      f = kAppHit;
    } else {
      ++e.misses;
      if (kernel(rng)) f = kSecondTierHit;
    }
    e.flags.push_back(f);
    e.sampled += sampler.Sampled(b);
  }
  return e;
}

// Service times reported with each read (ns): C_a on a kernel hit,
// C_a + C_k on a miss, the default costs, so measuring them changes none.
constexpr uint64_t kHitNs = 3'000;
constexpr uint64_t kMissNs = 19'000;

// The empty callback: what an engine's hook costs with nothing behind it.
using AppFn = void (*)(void*, const Block&, bool);
using ReadFn = void (*)(void*, const Block&, bool, uint64_t);
__attribute__((noipa)) void EmptyAppAccess(void*, const Block&, bool) {}
__attribute__((noipa)) void EmptyRead(void*, const Block&, bool, uint64_t) {}
AppFn volatile g_app_fn = EmptyAppAccess;
ReadFn volatile g_read_fn = EmptyRead;

template <typename App, typename Read>
void Feed(const Events& e, App&& app, Read&& read) {
  const Block* const blocks = e.blocks.data();
  const uint8_t* const flags = e.flags.data();
  const size_t n = e.blocks.size();
  for (size_t i = 0; i < n; ++i) {
    const bool hit = flags[i] & kAppHit;
    app(blocks[i], hit);
    if (!hit) {
      const bool second_tier_hit = flags[i] & kSecondTierHit;
      read(blocks[i], second_tier_hit, second_tier_hit ? kHitNs : kMissNs);
    }
  }
}

void FeedBaseline(const Events& e) {
  const AppFn app = g_app_fn;
  const ReadFn read = g_read_fn;
  Feed(
      e, [&](const Block& b, bool hit) { app(nullptr, b, hit); },
      [&](const Block& b, bool kh, uint64_t ns) { read(nullptr, b, kh, ns); });
}

void FeedController(const Events& e, Controller* c) {
  Feed(
      e, [&](const Block& b, bool hit) { c->RecordAppAccess(b, hit); },
      [&](const Block& b, bool kh, uint64_t ns) { c->RecordRead(b, kh, ns); });
}

struct Timing {
  double cpu_ns = 0, wall_ns = 0;  // per access
};

template <typename Work>
Timing Time(uint64_t accesses, const Work& work) {
  const double cpu = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  work();
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  return Timing{(ThreadCpuSeconds() - cpu) * 1e9 / accesses, wall.count() * 1e9 / accesses};
}

bool InState(const Controller& c, ControllerState want, const char* what) {
  const ControllerStats s = c.Stats();
  if (s.state == want) return true;
  std::fprintf(stderr, "controller_bench: the %s Controller is %s after %llu accesses\n", what,
               ControllerStateName(s.state), static_cast<unsigned long long>(s.accesses));
  return false;
}

// --- 1. cost per access ---

int CostPart(const Flags& flags) {
  std::printf("== 1. Added cost per access: RecordAppAccess + RecordRead on misses ==\n");
  const DataLayout layout = MakeLayout(flags.data_bytes);
  const uint64_t memory = flags.memory_bytes;
  ControllerConfig base = BaseConfig(layout, memory);
  base.sample_rate = flags.sample_rate;
  if (flags.rocksdb_tiers) {
    base.second_tier_owned = true;
    base.app_cache_overhead = 0;
    base.rocksdb_tiers = RocksDbTiers{RocksDbDefaultShardBits(base.initial_ma_bytes),
                                      RocksDbDefaultShardBits(memory - base.initial_ma_bytes)};
  }
  const Sampler sampler(SamplerOptions{base.sample_rate, base.group_blocks, base.block_disk_bytes});
  std::printf("D = %.2f GiB: %llu blocks of 4 KiB, mean %u B on disk, %.2f GiB on disk; "
              "M = %.2f GiB; R = 1/%.0f, G = %u; %s\n",
              flags.data_bytes / double(kGiB), static_cast<unsigned long long>(layout.num_blocks()),
              layout.mean_disk_block_bytes(), layout.disk_bytes() / double(kGiB),
              memory / double(kGiB), 1 / base.sample_rate, base.group_blocks,
              flags.rocksdb_tiers ? "RocksDB's block cache and compressed cache"
                                  : "an LRU ghost above page-cache ghosts");
  std::printf("%llu accesses per timed run, %.0f%% application misses (75%% of them kernel hits), "
              "%llu repeats; ns per access, CPU time of the thread (wall in brackets)\n\n",
              static_cast<unsigned long long>(flags.accesses), 100 * (1 - flags.app_hit),
              static_cast<unsigned long long>(flags.repeats));

  struct Summary {
    std::string dist;
    double base = 0, stable = 0, adapting = 0, d_stable = 0, d_adapting = 0, sampled = 0;
    double wall_d_stable = 0, wall_d_adapting = 0;
    uint64_t ghost_bytes = 0;
  };
  std::vector<Summary> summaries;
  bool states_ok = true;
  for (const std::string& dist : flags.dists) {
    const Events events =
        MakeEvents(layout, dist, flags.accesses, flags.seed, flags.app_hit, 0.75, sampler);
    const double n = static_cast<double>(events.blocks.size());

    ControllerConfig stable_cfg = base;
    stable_cfg.start_with_round = false;
    stable_cfg.settle_accesses = 1000;
    ControllerConfig adapting_cfg = base;
    adapting_cfg.start_with_round = true;
    if (flags.measuring) {
      adapting_cfg.parallel_measure_accesses = uint64_t{1} << 62;
      adapting_cfg.candidate_accesses = uint64_t{1} << 62;
    } else {
      adapting_cfg.round_warmup_accesses = uint64_t{1} << 62;
      adapting_cfg.max_round_warmup_accesses = uint64_t{1} << 62;
    }
    Controller stable(stable_cfg, nullptr);
    Controller adapting(adapting_cfg, nullptr);

    // Untimed: caches warm, the Stable one settles, the ghosts fill.
    FeedBaseline(events);
    FeedController(events, &stable);
    FeedController(events, &adapting);
    states_ok &= InState(stable, ControllerState::kStable, "Stable");
    states_ok &= InState(adapting, ControllerState::kAdapting, "Adapting");

    std::printf("-- %s: %.2f%% of accesses sampled --\n", dist.c_str(),
                100.0 * events.sampled / n);
    std::printf("%-6s %18s %18s %18s %18s %18s\n", "repeat", "baseline(S pair)", "Stable",
                "baseline(A pair)", "Adapting", "added S / A");
    std::vector<Timing> bs, st, ba, ad;
    for (uint64_t r = 0; r < flags.repeats; ++r) {
      const bool flip = r % 2 == 1;
      auto pair = [&](Controller* c, std::vector<Timing>* b, std::vector<Timing>* t) {
        auto run_base = [&] { b->push_back(Time(events.blocks.size(), [&] { FeedBaseline(events); })); };
        auto run_ctl = [&] {
          t->push_back(Time(events.blocks.size(), [&] { FeedController(events, c); }));
        };
        if (flip) {
          run_ctl();
          run_base();
        } else {
          run_base();
          run_ctl();
        }
      };
      pair(&stable, &bs, &st);
      pair(&adapting, &ba, &ad);
      states_ok &= InState(stable, ControllerState::kStable, "Stable");
      states_ok &= InState(adapting, ControllerState::kAdapting, "Adapting");
      std::printf("%-6llu %8.1f (%6.1f)  %8.1f (%6.1f)  %8.1f (%6.1f)  %8.1f (%6.1f)  %7.1f / %6.1f\n",
                  static_cast<unsigned long long>(r + 1), bs.back().cpu_ns, bs.back().wall_ns,
                  st.back().cpu_ns, st.back().wall_ns, ba.back().cpu_ns, ba.back().wall_ns,
                  ad.back().cpu_ns, ad.back().wall_ns, st.back().cpu_ns - bs.back().cpu_ns,
                  ad.back().cpu_ns - ba.back().cpu_ns);
    }
    auto cpu = [](const std::vector<Timing>& v) {
      std::vector<double> x;
      for (const Timing& t : v) x.push_back(t.cpu_ns);
      return x;
    };
    auto diff = [](const std::vector<Timing>& a, const std::vector<Timing>& b, bool wall) {
      std::vector<double> x;
      for (size_t i = 0; i < a.size(); ++i) {
        x.push_back(wall ? a[i].wall_ns - b[i].wall_ns : a[i].cpu_ns - b[i].cpu_ns);
      }
      return Median(x);
    };
    Summary s;
    s.dist = dist;
    std::vector<double> all_base = cpu(bs);
    for (double x : cpu(ba)) all_base.push_back(x);
    s.base = Median(all_base);
    s.stable = Median(cpu(st));
    s.adapting = Median(cpu(ad));
    s.d_stable = diff(st, bs, false);
    s.d_adapting = diff(ad, ba, false);
    s.wall_d_stable = diff(st, bs, true);
    s.wall_d_adapting = diff(ad, ba, true);
    s.sampled = static_cast<double>(events.sampled) / n;
    const ControllerStats as = adapting.Stats();
    s.ghost_bytes = as.ghost_memory_bytes;
    const ControllerStats ss = stable.Stats();
    std::printf("Stable Controller: %s, %zu rounds, %llu accesses, L_e %.3f (reference %.3f)\n",
                ControllerStateName(ss.state), ss.rounds.size(),
                static_cast<unsigned long long>(ss.accesses), ss.latency, ss.reference_latency);
    std::printf("Adapting Controller: %s (round in %s since access %llu), %llu accesses, "
                "ghosts %llu bytes now (peak %llu)\n\n",
                ControllerStateName(as.state), flags.measuring ? "its measure" : "warm-up",
                static_cast<unsigned long long>(as.rounds.empty() ? 0 : as.rounds.back().start_access),
                static_cast<unsigned long long>(as.accesses),
                static_cast<unsigned long long>(as.ghost_memory_bytes),
                static_cast<unsigned long long>(as.peak_ghost_memory_bytes));
    summaries.push_back(s);
  }

  std::printf("Summary (medians; added = median of the per-repeat differences to the adjacent "
              "baseline run, CPU time; wall in brackets):\n");
  std::printf("%-10s %8s %9s %10s %16s %16s %20s\n", "workload", "sampled", "baseline", "Stable",
              "added Stable", "Adapting", "added Adapting");
  for (const Summary& s : summaries) {
    std::printf("%-10s %7.2f%% %9.1f %10.1f %8.1f (%5.1f) %16.1f %11.1f (%5.1f)\n", s.dist.c_str(),
                100 * s.sampled, s.base, s.stable, s.d_stable, s.wall_d_stable, s.adapting,
                s.d_adapting, s.wall_d_adapting);
  }
  for (const Summary& s : summaries) {
    std::printf("%s: Stable +%.1f ns (target <= 50: %s), Adapting +%.1f ns (target <= 150: %s); "
                "a sampled access costs at most %.0f ns ((Adapting - Stable) / sampled share)\n",
                s.dist.c_str(), s.d_stable, s.d_stable <= 50 ? "met" : "MISSED", s.d_adapting,
                s.d_adapting <= 150 ? "met" : "MISSED",
                s.sampled > 0 ? (s.adapting - s.stable) / s.sampled : 0.0);
  }
  std::printf("\n");
  return states_ok ? 0 : 1;
}

// --- 2. ghost memory ---

int MemoryPart(const Flags& flags) {
  std::printf("== 2. Ghost memory while Adapting: M = 1 GiB, D = 5 GiB, uniform ==\n");
  const DataLayout layout = MakeLayout(5 * kGiB);
  const uint64_t memory = kGiB;
  const ControllerConfig cfg = BaseConfig(layout, memory);  // the defaults
  const Sampler sampler(SamplerOptions{cfg.sample_rate, cfg.group_blocks, cfg.block_disk_bytes});
  // The engine's outcomes as at M_a = 8 MiB: almost no application hits;
  // about M / D_c of the reads hit the kernel.
  const double app_hit = static_cast<double>(cfg.initial_ma_bytes) / layout.memory_bytes();
  const double second_tier_hit = std::min(1.0, static_cast<double>(memory) / layout.disk_bytes());
  const uint64_t n = 3'000'000;
  const Events events = MakeEvents(layout, "uniform", n, flags.seed + 1, app_hit, second_tier_hit, sampler);
  Controller controller(cfg, nullptr);

  const uint64_t kStep = 100'000;
  std::printf("%10s %10s %14s\n", "accesses", "state", "ghost bytes");
  const Block* blocks = events.blocks.data();
  uint64_t stable_at = 0, stable_ghost = UINT64_MAX;
  for (uint64_t i = 0; i < events.blocks.size(); ++i) {
    const uint8_t f = events.flags[i];
    controller.RecordAppAccess(blocks[i], f & kAppHit);
    if (!(f & kAppHit)) controller.RecordRead(blocks[i], f & kSecondTierHit, f & kSecondTierHit ? kHitNs : kMissNs);
    if ((i + 1) % kStep == 0) {
      const ControllerStats s = controller.Stats();
      std::printf("%10llu %10s %14llu\n", static_cast<unsigned long long>(i + 1),
                  ControllerStateName(s.state),
                  static_cast<unsigned long long>(s.ghost_memory_bytes));
      if (s.state == ControllerState::kStable && !s.rounds.empty() && stable_at == 0) {
        stable_at = i + 1;
        stable_ghost = s.ghost_memory_bytes;
      }
    }
  }
  const ControllerStats s = controller.Stats();
  if (s.rounds.empty() || s.rounds.front().end_access == 0) {
    std::fprintf(stderr, "controller_bench: the start round did not end in %llu accesses\n",
                 static_cast<unsigned long long>(n));
    return 1;
  }
  const RoundStats& round = s.rounds.front();
  const uint64_t peak = s.peak_ghost_memory_bytes;
  const double target = memory * 0.0005;
  std::printf("round: accesses %llu..%llu, %s (%s)\n",
              static_cast<unsigned long long>(round.start_access),
              static_cast<unsigned long long>(round.end_access), round.decision.c_str(),
              round.reason.c_str());
  std::printf("peak ghost memory (candidates %s) %llu bytes = %.4f%% of M; the paper's round's "
              "target <= 0.05%% of M = %.0f bytes: %s (%+.0f bytes, %.2fx); paper 460 KB\n",
              cfg.parallel_candidates ? "all at once" : "one at a time",
              static_cast<unsigned long long>(peak), 100.0 * peak / memory, target,
              peak <= target ? "met" : "MISSED", peak - target, peak / target);
  if (stable_at) {
    std::printf("Stable again at access %llu: ghost memory %llu bytes (%s)\n",
                static_cast<unsigned long long>(stable_at),
                static_cast<unsigned long long>(stable_ghost), stable_ghost == 0 ? "freed" : "NOT freed");
  } else {
    std::printf("not Stable again within %llu accesses (state %s)\n",
                static_cast<unsigned long long>(n), ControllerStateName(s.state));
  }

  // The breakdown: the round's sampled accesses through ghosts built as
  // GhostSim::Begin builds them, the kernel ghost at stage 0's size.
  const double rate = cfg.sample_rate;
  auto scaled = [&](uint64_t bytes) {
    return static_cast<uint64_t>(std::llround(static_cast<double>(bytes) * rate));
  };
  std::vector<uint64_t> candidates;
  for (const CandidateStats& c : round.candidates) candidates.push_back(c.ma_bytes);
  GhostLru app(scaled(memory), GhostLru::Options{.headroom = GhostSim::kAppGhostHeadroom});
  PageCacheOptions page;
  page.capacity_bytes = scaled(memory - candidates.front());
  page.max_readahead_pages = cfg.max_readahead_pages;
  page.balance_scale = sampler.scale();
  page.sample = &sampler;
  PageCacheModel kernel(page);
  // The same without shadow entries (no refault activation), to show
  // what remembering evicted pages costs.
  PageCacheOptions no_shadow_page = page;
  no_shadow_page.refault_activation = false;
  PageCacheModel no_shadow(no_shadow_page);
  const uint64_t app_limit = scaled(candidates.front());
  uint64_t sampled = 0, app_peak = 0, kernel_peak = 0;
  for (uint64_t i = round.start_access; i < round.end_access && i < events.blocks.size(); ++i) {
    const Block& b = blocks[i];
    if (!sampler.Sampled(b)) continue;
    ++sampled;
    const uint64_t d = app.Access(b.key(), b.mem_size);
    if (d > app_limit && kernel.capacity() >= kPageSize) {
      kernel.Read(b);
      no_shadow.Read(b);
    }
    app_peak = std::max<uint64_t>(app_peak, app.MemoryUsage());
    kernel_peak = std::max<uint64_t>(kernel_peak, kernel.MemoryUsage());
  }
  // And the 9 candidates' counters.
  const uint64_t counters = candidates.size() * (2 * sizeof(uint64_t) + 3 * sizeof(uint64_t));
  const uint64_t total = app.MemoryUsage() + kernel.MemoryUsage() + counters;
  std::printf("\nBreakdown at the round's end (reconstructed: %llu sampled accesses of %llu, "
              "kernel ghost at stage 0's %llu bytes):\n",
              static_cast<unsigned long long>(sampled),
              static_cast<unsigned long long>(round.end_access - round.start_access),
              static_cast<unsigned long long>(page.capacity_bytes));
  std::printf("  %-58s %10s %7s\n", "part", "bytes", "share");
  auto row = [&](const char* what, uint64_t bytes) {
    std::printf("  %-58s %10llu %6.1f%%\n", what, static_cast<unsigned long long>(bytes),
                100.0 * bytes / total);
  };
  char text[128];
  std::snprintf(text, sizeof text, "application ghost (GhostLru, %zu entries)", app.entries());
  row(text, app.MemoryUsage());
  std::snprintf(text, sizeof text, "kernel ghost (PageCacheModel, %llu pages + %llu shadows)",
                static_cast<unsigned long long>(kernel.used_bytes() / kPageSize),
                static_cast<unsigned long long>(kernel.shadow_entries()));
  row(text, kernel.MemoryUsage());
  row("per-candidate counters", counters);
  row("total (reconstructed)", total);
  std::printf("  kernel ghost without shadow entries (refault_activation off): %llu bytes, "
              "%llu pages\n",
              static_cast<unsigned long long>(no_shadow.MemoryUsage()),
              static_cast<unsigned long long>(no_shadow.used_bytes() / kPageSize));
  std::printf("  reported peak %llu; ghosts alone (both MemoryUsage peaks) %llu = %.4f%% of M\n\n",
              static_cast<unsigned long long>(peak),
              static_cast<unsigned long long>(app_peak + kernel_peak),
              100.0 * (app_peak + kernel_peak) / memory);
  return stable_at && stable_ghost == 0 ? 0 : 1;
}

// --- 3. convergence ---

int ConvergencePart(const Flags& flags) {
  std::printf("== 3. Convergence at the defaults: RunReplay, M = 1 GiB, D = 2 GiB, %llu accesses ==\n",
              static_cast<unsigned long long>(flags.convergence_accesses));
  const uint64_t memory = kGiB;
  const DataLayout layout = MakeLayout(2 * kGiB);
  struct Row {
    std::string workload, decision;
    uint64_t length = 0, adopted = 0, best = 0;
    double le_adopted = 0, le_best = 0;
    double seconds = 0;
  };
  std::vector<Row> rows;
  for (const char* workload : {"uniform", "zipfian", "hotspot20"}) {
    const auto start = std::chrono::steady_clock::now();
    const BlockTrace trace =
        TraceFromWorkload(layout, workload, flags.convergence_accesses, flags.seed);
    ReplayOptions ro;
    ro.controller.memory_bytes = memory;
    ro.controller.block_disk_bytes = layout.mean_disk_block_bytes();
    ro.controller.parallel_candidates = !g_one_at_a_time;
    const ReplayResult result = RunReplay(trace, ro);
    std::printf("-- %s: final M_a %.1f MiB, mean L_e %.3f, %zu rounds --\n", workload,
                result.final_ma_bytes / double(kMiB), result.mean_latency,
                result.stats.rounds.size());
    for (const RoundStats& r : result.stats.rounds) {
      std::printf("  round %llu..%llu (%llu accesses): %s, trigger '%s'; %s\n",
                  static_cast<unsigned long long>(r.start_access),
                  static_cast<unsigned long long>(r.end_access),
                  static_cast<unsigned long long>(r.end_access ? r.end_access - r.start_access : 0),
                  r.decision.empty() ? "running" : r.decision.c_str(), r.trigger.c_str(),
                  r.reason.c_str());
    }
    Row row;
    row.workload = workload;
    if (result.stats.rounds.empty() || result.stats.rounds.front().end_access == 0) {
      row.decision = "unfinished";
      rows.push_back(row);
      continue;
    }
    const RoundStats& round = result.stats.rounds.front();
    row.length = round.end_access - round.start_access;
    row.decision = round.decision;
    row.adopted = round.adopted_ma_bytes;

    StudyOptions so;
    so.memory_bytes = memory;
    so.costs = ro.costs;
    so.warmup = 0.5;
    for (const CandidateStats& c : round.candidates) so.splits.push_back(c.ma_bytes);
    const StudyResult study = RunTwoLevelStudy(trace, so);
    std::printf("  %12s %8s %7s %8s %12s %12s\n", "M_a MiB", "current", "valid", "samples",
                "predicted", "study L_e");
    for (size_t i = 0; i < round.candidates.size(); ++i) {
      const CandidateStats& c = round.candidates[i];
      const SplitPoint& p = study.points[i];
      std::printf("  %12.1f %8s %7s %8llu %12.3f %12.3f%s\n", c.ma_bytes / double(kMiB),
                  c.current ? "yes" : "", c.valid ? "yes" : "no",
                  static_cast<unsigned long long>(c.samples), c.predicted_latency, p.latency,
                  p.ma_bytes == row.adopted ? "  <- adopted" : "");
      if (p.ma_bytes == row.adopted) row.le_adopted = p.latency;
    }
    row.best = study.best.ma_bytes;
    row.le_best = study.best.latency;
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    row.seconds = took.count();
    rows.push_back(row);
  }
  std::printf("\nSummary (target: a round within 1,500,000 accesses; the reference needs 2.2M):\n");
  std::printf("%-10s %12s %7s %10s %13s %12s %16s %12s\n", "workload", "round", "target",
              "decision", "adopted MiB", "best MiB", "L_e adopted/best", "seconds");
  for (const Row& r : rows) {
    std::printf("%-10s %12llu %7s %10s %13.1f %12.1f %16.3f %12.1f\n", r.workload.c_str(),
                static_cast<unsigned long long>(r.length),
                r.length && r.length <= 1'500'000 ? "met" : "MISSED", r.decision.c_str(),
                r.adopted / double(kMiB), r.best / double(kMiB),
                r.le_best > 0 ? r.le_adopted / r.le_best : 0.0, r.seconds);
  }
  std::printf("\n");
  return 0;
}

// --- 4. RocksDB's tiers in a round ---

int TiersPart(const Flags& flags) {
  std::printf("== 4. A round's cost per sampled access: RocksDB's tiers vs the LRU ghosts ==\n");
  const DataLayout layout = MakeLayout(80 * kMiB);
  const uint64_t memory = 64 * kMiB;
  const Sampler all(SamplerOptions{1.0, 32, layout.mean_disk_block_bytes()});
  std::vector<uint64_t> candidates;
  for (uint64_t i = 0; i <= 8; ++i) candidates.push_back(memory * i / 8);
  constexpr size_t kCurrent = 1;   // 8 MiB, RocksDB's default
  constexpr size_t kMeasured = 4;  // 32 MiB
  std::printf("M = 64 MiB, D = 80 MiB (%llu blocks), R = 1, %llu accesses warm-up + %llu timed, "
              "%llu repeats\n",
              static_cast<unsigned long long>(layout.num_blocks()),
              static_cast<unsigned long long>(flags.accesses),
              static_cast<unsigned long long>(flags.accesses),
              static_cast<unsigned long long>(flags.repeats));
  std::printf("%-10s %14s %14s %10s %18s\n", "workload", "LRU ghosts ns", "tiers ns", "ratio",
              "tiers stage ms");
  for (const std::string dist : {"hotspot10", "uniform"}) {
    const Events e = MakeEvents(layout, dist, 2 * flags.accesses, flags.seed, 0, 0, all);
    const size_t half = e.blocks.size() / 2;
    std::vector<double> lru, tiers, ratio, stage;
    for (uint64_t r = 0; r < flags.repeats; ++r) {
      double ns[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        const bool model = (k == 0) == (r % 2 == 0);
        GhostSimOptions o{memory, KernelModelKind::kLinux, 32};
        o.rocksdb_tiers = model;
        // The engine's shards: its caches were created at 8 and 56 MiB.
        o.primary_shard_bits = RocksDbDefaultShardBits(candidates[kCurrent]);
        o.secondary_shard_bits = RocksDbDefaultShardBits(memory - candidates[kCurrent]);
        GhostSim sim(o, &all);
        sim.Begin(candidates, kCurrent);
        for (size_t i = 0; i < half; ++i) sim.Access(e.blocks[i]);
        const Timing change = Time(1, [&] { sim.SetStage(kMeasured, true); });
        const Timing t = Time(e.blocks.size() - half, [&] {
          for (size_t i = half; i < e.blocks.size(); ++i) sim.Access(e.blocks[i]);
        });
        if (sim.StageSamples() != e.blocks.size() - half) {
          std::fprintf(stderr, "controller_bench: the ghosts measured %llu accesses, not %zu\n",
                       static_cast<unsigned long long>(sim.StageSamples()), e.blocks.size() - half);
          return 1;
        }
        ns[model] = t.cpu_ns;
        if (model) stage.push_back(change.cpu_ns / 1e6);
      }
      lru.push_back(ns[0]);
      tiers.push_back(ns[1]);
      ratio.push_back(ns[1] / ns[0]);
    }
    std::printf("%-10s %14.1f %14.1f %10.2f %18.2f\n", dist.c_str(), Median(lru), Median(tiers),
                Median(ratio), Median(stage));
  }
  std::printf("(medians of the repeats; ratio: the median of the per-repeat ratios; CPU time of "
              "the thread)\n\n");
  return 0;
}

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  int status = 0;
  try {
    if (flags.part == "all" || flags.part == "cost") status |= CostPart(flags);
    if (flags.part == "all" || flags.part == "memory") status |= MemoryPart(flags);
    if (flags.part == "all" || flags.part == "convergence") status |= ConvergencePart(flags);
    if (flags.part == "all" || flags.part == "tiers") status |= TiersPart(flags);
  } catch (const InputError& e) {
    std::fprintf(stderr, "controller_bench: %s\n", e.what());
    return 2;
  }
  return status;
}

}  // namespace
}  // namespace symbiosis

int main(int argc, char** argv) { return symbiosis::Main(argc, argv); }
